"""The Course (C++ ``trackgen::Course``): tracks or gate courses plus what a
simulation loop asks every step (checkpoint progress, collision, localization),
for all E envs at once.

The Course allocates the agents' state arrays and binds them once: write
``course.position`` (and ``orientation``, ``half_extents``, ``box_position``
when boxes are checked) in place, then call ``step()``; its result arrays are
the same memory every call.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Mapping, Optional

import numpy as np

from . import _trackgen
from ._common import JsonConfig, int32_array

__all__ = ["Course", "StepResult"]


class StepResult:
    """The arrays ``step()`` overwrites in place, grouped as in C++ ``StepResult``:
    ``events`` (``passed``, ``checkpoint_passed``, ``next_checkpoint``, ``laps``,
    ``progress``, ``wrong_way``, ``wrong_checkpoint``, ``dist_to_next``),
    ``contacts`` (``oob``, ``distance``, ``nearest``, ``normal``, ``boundary``;
    track mode with collision), ``posts`` (``hit``, ``disc``, ``depth``,
    ``nearest``; gates with posts), ``frames`` (``hit``, ``depth``; gates with
    frame collision), ``frame`` (``s``, ``n``, ``n_up``, ``segment``; when
    localizing). A group the Course does not compute is None.
    """

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        for group in ("events", "contacts", "posts", "frames", "frame"):
            fields = {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith(group + ".")}
            setattr(self, group, SimpleNamespace(**fields) if fields else None)

    def __repr__(self) -> str:
        groups = [g for g in ("events", "contacts", "posts", "frames", "frame") if getattr(self, g) is not None]
        return f"StepResult({', '.join(groups)})"


def _config_fields(config: Optional[Mapping[str, Any]], fields: dict) -> dict:
    merged = dict(config or {})
    merged.update(fields)
    for key in ("gen", "gate_gen"):
        if isinstance(merged.get(key), JsonConfig):
            merged[key] = merged[key].to_dict()
    return merged


class Course:
    """A ``trackgen::Course`` of a CourseConfig given as a dict and/or keyword arguments.

    Fields as in C++ ``CourseConfig``: ``mode`` ("track" or "gates"), ``gen`` (a
    TrackGenConfig or a dict of its fields; ``gen["num_envs"]`` is E in track
    mode), ``gate_gen`` (a GateGenConfig or a dict of its fields, gates mode), ``seed``,
    ``seed_expansion`` ("arange" or "hashed"), ``checkpoint_spacing``,
    ``collision`` ("segments", "sdf" or None), ``max_boxes``, ``localize``,
    ``localize_window``, ``speed_limits`` (a dict of ``a_lat_max``, ``a_accel``,
    ``a_brake``, ``v_cap``), ``post_radius``, ``frame_collision``, ... Invalid
    fields raise ValueError with the library's message.
    """

    def __init__(self, config: Optional[Mapping[str, Any]] = None, /, *, eager: bool = False, **fields: Any) -> None:
        self._c = _trackgen._Course(_config_fields(config, fields))
        self._c.eager = bool(eager)
        self._refresh()

    def _refresh(self) -> None:
        arrays = self._c.arrays()
        self._result = StepResult(arrays)
        self._arrays = arrays
        self._track = None

    @property
    def num_envs(self) -> int:
        """Number of envs E."""
        return self._c.num_envs

    def _state(self, name: str) -> Optional[np.ndarray]:
        return self._arrays.get(name)

    position = property(lambda self: self._state("position"), doc="Agent positions [E, 3] float32 (write in place).")
    orientation = property(
        lambda self: self._state("orientation"), doc="Box orientations [E*B, 4] (x, y, z, w) float32, or None."
    )
    half_extents = property(lambda self: self._state("half_extents"), doc="Box half extents [E*B, 2] float32, or None.")
    box_position = property(lambda self: self._state("box_position"), doc="Box centres [E*B, 3] (B > 1), or None.")
    speed = property(lambda self: self._state("speed"), doc="Speed profile [E*N_max] (with speed_limits), or None.")
    curvature = property(lambda self: self._state("curvature"), doc="Curvature [E*N_max] (with speed_limits), or None.")

    @property
    def gates(self) -> Optional[SimpleNamespace]:
        """Gates mode: every field of the course's GateSequence by name (the fields of
        :attr:`trackgen.GateSequence.fields`, e.g. ``position`` [E*G, 3]); None in track mode."""
        fields = {k[6:]: v for k, v in self._arrays.items() if k.startswith("gates.")}
        return SimpleNamespace(**fields) if fields else None

    @property
    def track(self):
        """The Track (the generator's; the course line through the gates in gates mode)."""
        from . import Track  # noqa: PLC0415

        if self._track is None:
            self._track = Track(self._c.track())
        return self._track

    @property
    def result(self) -> StepResult:
        """The arrays of the last step()."""
        return self._result

    def step(self) -> StepResult:
        """Progress, collision and localization of the agents at their current state."""
        self._c.step()
        return self._result

    def regenerate(self, mask: Any, advance: bool = True) -> None:
        """New tracks (or gates) for the envs with ``mask[e] != 0`` ([E] int32 or bool),
        advancing their epochs when ``advance``; their helpers are refreshed,
        every other env stays bit-identical."""
        self._c.regenerate(int32_array(mask, "trackgen.Course.regenerate", "mask", self.num_envs, True), bool(advance))

    def reset(self, mask: Any) -> None:
        """Restarts progress and localization of the envs with ``mask[e] != 0`` (e.g. teleported agents)."""
        self._c.reset(int32_array(mask, "trackgen.Course.reset", "mask", self.num_envs, True))

    def generate(self, seed: Optional[int] = None) -> None:
        """Regenerates the whole batch (with base seed ``seed`` if given; epochs back to 0)."""
        self._c.generate(seed)

    def __repr__(self) -> str:
        mode = "gates" if self._c.gates_mode else "track"
        return f"Course(mode={mode!r}, num_envs={self.num_envs})"

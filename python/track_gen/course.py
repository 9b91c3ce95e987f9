"""The Course: a batch of tracks (or gate courses) and what a simulation loop
asks of it every step (checkpoint progress, collision, localization), over
the C++ ``trackgen::Course``."""

from __future__ import annotations

import dataclasses
import numbers
from types import SimpleNamespace
from typing import Any, Optional, Union

import numpy as np

from trackgen import _trackgen

from ._array import Array, as_input
from ._batches import GateSequence, Track
from ._config import GateGenConfig, TrackGenConfig
from ._generators import set_capturing
from ._results import Result, results_from
from .checkpoints import CheckpointSet
from .collision import BoxContact, DiscContact
from .collision_frames import FrameContact
from .heightfield import HeightField
from .localize import TrackFrame
from .progress import ProgressEvents, _mask

__all__ = ["Course", "CourseConfig", "StepResult", "set_capturing"]

_INT32_MAX = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class CourseConfig:
    """What a Course builds (a frozen dataclass, validated at construction:
    ValueError naming the field, also for an option that does not apply).

    The original's fields: ``mode`` ("track" or "gates"), ``gen`` (a
    TrackGenConfig in track mode, a GateGenConfig in gates mode, which must
    have ``gate_width > 0``), ``seeds`` (int ``k``: env e gets ``k + e``; or an
    ``[E]`` int32 array), ``collision`` (None, "segments", "sdf"; track),
    ``sdf_resolution`` (None: 128; sdf), ``heightfield_resolution`` (track),
    ``post_radius`` (gates; > 0: a DiscChecker on every gate's posts),
    ``frame_collision`` with ``frame_thickness``, ``frame_depth``,
    ``agent_radius`` (gates), ``checkpoint_spacing`` (track, required),
    ``max_checkpoints`` (track), ``max_boxes``, ``samples_per_gate`` (gates),
    ``localize_window`` (gates; in track mode with ``localize=True``).

    TrackGen's additions: ``localize`` (track mode localizes too:
    ``StepResult.frame``), ``speed_limits`` (a dict of ``a_lat_max``,
    ``a_accel``, ``a_brake``, ``v_cap``: a curvature and speed profile per
    generation, ``Course.speed``), ``curvature_window``, ``sdf_padding``,
    ``heightfield_padding``, ``seed_expansion`` ("arange" or "hashed"),
    ``frame_window``.
    """

    mode: str
    gen: Union[TrackGenConfig, GateGenConfig]
    seeds: Any = 0
    collision: Optional[str] = None
    sdf_resolution: Optional[int] = None
    heightfield_resolution: Optional[int] = None
    post_radius: float = 0.0
    frame_collision: bool = False
    frame_thickness: float = 0.0
    frame_depth: float = 0.0
    agent_radius: float = 0.0
    checkpoint_spacing: Optional[float] = None
    max_checkpoints: Optional[int] = None
    max_boxes: int = 1
    samples_per_gate: int = 8
    localize_window: Optional[int] = None
    localize: bool = False
    speed_limits: Optional[dict] = None
    curvature_window: Optional[int] = None
    sdf_padding: Optional[float] = None
    heightfield_padding: Optional[float] = None
    seed_expansion: str = "arange"
    frame_window: int = 4

    def __post_init__(self) -> None:
        api = "track_gen.course.CourseConfig"
        if self.mode not in ("track", "gates"):
            raise ValueError(f"{api}: mode must be 'track' or 'gates', got {self.mode!r}")
        want = TrackGenConfig if self.mode == "track" else GateGenConfig
        if not isinstance(self.gen, want):
            raise ValueError(f"{api}: gen must be a {want.__name__} in {self.mode} mode, got {type(self.gen).__name__}")
        if self.mode == "gates" and not self.gen.gate_width > 0:
            raise ValueError(f"{api}: gates mode needs gen.gate_width > 0, got {self.gen.gate_width}")
        _seeds(self.seeds, api, self.gen.num_envs)
        _trackgen._Course.validate(self._native_fields())  # every rule, naming the field

    def _native_fields(self) -> dict:
        d = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("gen", "seeds", "sdf_resolution", "localize_window")
        }
        d["gen" if self.mode == "track" else "gate_gen"] = self.gen._native().to_object()
        if isinstance(self.seeds, numbers.Integral):
            d["seed"] = int(self.seeds)
        # The original's "None: the default" fields are unset in C++ unless they apply.
        if self.sdf_resolution is not None:
            d["sdf_resolution"] = self.sdf_resolution
        if self.localize_window is not None:
            d["localize_window"] = self.localize_window
        return d


def _seeds(seeds: Any, api: str, n: int) -> Union[int, np.ndarray]:
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, (bool, np.bool_)):
        k = int(seeds)
        if not -(2**31) <= k <= _INT32_MAX - (n - 1):
            raise ValueError(
                f"{api}: seeds = {k} with {n} envs would leave int32 (env seeds k + e); k <= {_INT32_MAX - (n - 1)}"
            )
        return k
    return as_input(seeds, api, "seeds", "ints", n)


class StepResult:
    """What ``Course.step()`` returns (the same object every call, its arrays
    overwritten in place): ``events`` (ProgressEvents), ``contacts`` (BoxContact
    in track mode with collision, DiscContact with gate posts, FrameContact
    with frame collision, else None), ``frame`` (TrackFrame in gates mode, or
    in track mode with ``localize``, else None)."""

    def __init__(self, events: ProgressEvents, contacts: Any, frame: Optional[TrackFrame]) -> None:
        self.events = events
        self.contacts = contacts
        self.frame = frame

    def clone(self) -> "StepResult":
        """An independent copy of every array."""
        return StepResult(
            self.events.clone(),
            None if self.contacts is None else self.contacts.clone(),
            None if self.frame is None else self.frame.clone(),
        )

    def __repr__(self) -> str:
        return f"StepResult(events, contacts={type(self.contacts).__name__}, frame={type(self.frame).__name__})"


class _CourseRng:
    """The Course's base seeds as the original's ``course.rng``: ``seeds_warp``
    is the Course's own ``[E]`` int32 seed array (read at every generation)."""

    def __init__(self, seeds: Array, num_envs: int) -> None:
        self.seeds_warp = seeds
        self.num_envs = num_envs
        self.device = "cpu"

    def set_seeds_warp(self, seeds: Any, ids: Any = None) -> None:
        """``seed[ids[k]] = seeds[k]`` (ids default: every env in order)."""
        api = "track_gen.Course.rng.set_seeds_warp"
        s = as_input(seeds, api, "seeds", "ints")
        idx = np.arange(len(s)) if ids is None else as_input(ids, api, "ids", "ints", len(s))
        self.seeds_warp.numpy()[idx] = s


class Course:
    """``Course(config)``: the generator (TrackGenerator in track mode,
    GateGenerator in gates mode) and every helper of its config, all built and
    filled here (TrackGen builds them at construction, the original at the
    first generate()).

    The loop: ``course.generate()`` (or ``generate(seeds)``), ``course.bind(
    position, orientation, half_extents)`` once with your state arrays (read in
    place), then per step write them and call ``course.step()``;
    ``reset(mask)`` restarts progress (and the localizer) of envs;
    ``regenerate(mask, advance=True)`` gives the masked envs new tracks (TrackGen's
    masked regeneration: other envs stay bit-identical).

    Attributes (as the original's): ``generator`` (``.track`` / ``.gates``),
    ``rng`` (``seeds_warp``), ``result``, ``collision`` (``contacts``, ``sdf``),
    ``checkpoints`` (CheckpointSet), ``checkpoint_sampler`` (``truncated``,
    ``step``; track mode), ``progress`` (``events``, ``next_checkpoint_state``),
    ``heightfield`` (HeightField or None), ``course_line`` (``track``; gates
    mode), ``localizer`` (``frame``, ``last_segment``), and TrackGen's
    ``speed`` and ``curvature`` (``[E*N_max]``, with ``speed_limits``).
    """

    _api = "track_gen.course.Course"

    def __init__(self, config: CourseConfig) -> None:
        if not isinstance(config, CourseConfig):
            raise ValueError(f"{self._api}: config must be a CourseConfig, got {type(config).__name__}")
        self.config = config
        self.mode = config.mode
        self._c = _trackgen._Course(config._native_fields())
        self.num_envs = self._c.num_envs
        if not isinstance(config.seeds, numbers.Integral):
            self._c.generate_seeds(_seeds(config.seeds, self._api, self.num_envs))
        self._build()
        self._generated = False
        self._bound = None

    def _build(self) -> None:
        c = self._c
        arrays = c.arrays()
        tools = c.tool_arrays()
        gates_mode = self.mode == "gates"
        events = results_from(ProgressEvents, arrays, "events.")
        frame = results_from(TrackFrame, arrays, "frame.") if "frame.s" in arrays else None
        if "contacts.oob" in arrays:
            contacts = results_from(BoxContact, arrays, "contacts.")
        elif "posts.hit" in arrays:
            contacts = results_from(DiscContact, arrays, "posts.")
        elif "frames.hit" in arrays:
            contacts = results_from(FrameContact, arrays, "frames.")
        else:
            contacts = None
        self.result = StepResult(events, contacts, frame)
        self.rng = _CourseRng(Array(tools["seeds"]), self.num_envs)
        self.epoch = Array(tools["epoch"])
        self.checkpoints = CheckpointSet._wrap(c.checkpoints(), self)
        if gates_mode:
            gates = GateSequence._wrap(c.gates())
            self.generator = SimpleNamespace(
                gates=gates, config=self.config.gen, num_envs=self.num_envs, rng=self.rng, device="cpu"
            )
            self.course_line = SimpleNamespace(
                track=Track._wrap(c.track()), samples_per_gate=self.config.samples_per_gate
            )
            self.course_line.line = self.course_line.track
            self.checkpoint_sampler = None
            self._output = gates
        else:
            track = Track._wrap(c.generator_track())
            self.generator = SimpleNamespace(
                track=track, config=self.config.gen, num_envs=self.num_envs, rng=self.rng, device="cpu"
            )
            self.course_line = None
            self.checkpoint_sampler = SimpleNamespace(
                checkpoints=self.checkpoints,
                truncated=Array(tools["checkpoint_sampler.truncated"]),
                step=Array(tools["checkpoint_sampler.step"]),
            )
            self._output = track
        self.progress = SimpleNamespace(
            events=events,
            checkpoints=self.checkpoints,
            next_checkpoint_state=Array(tools["progress.next_checkpoint_state"]),
        )
        if "contacts.oob" in arrays:
            sdf = results_from(Result, tools, "collision.sdf.") if "collision.sdf.phi" in tools else None
            self.collision = SimpleNamespace(
                contacts=contacts, sdf=sdf, method=self.config.collision, max_boxes=self.config.max_boxes
            )
        elif "posts.hit" in arrays:
            self.collision = SimpleNamespace(
                contacts=contacts, max_boxes=self.config.max_boxes, radius=self.config.post_radius
            )
        elif "frames.hit" in arrays:
            self.collision = SimpleNamespace(contacts=contacts)
        else:
            self.collision = None
        res = self.config.heightfield_resolution
        self.heightfield = (
            results_from(HeightField, tools, "heightfield.", res=res) if "heightfield.height" in tools else None
        )
        self.localizer = (
            SimpleNamespace(frame=frame, last_segment=Array(tools["localizer.last_segment"]))
            if "localizer.last_segment" in tools
            else None
        )
        self.speed = Array(arrays["speed"]) if "speed" in arrays else None
        self.curvature = Array(arrays["curvature"]) if "curvature" in arrays else None

    @property
    def track(self) -> Track:
        """The generator's Track (track mode) or the course line (gates mode)."""
        return self._output if self.mode == "track" else self.course_line.track

    def bind(self, position: Any, orientation: Any = None, half_extents: Any = None, box_position: Any = None) -> None:
        """Binds your state arrays, read in place by every step(): ``position``
        ``[E]`` vec3f always; with a box or disc checker also ``orientation``
        (``[E*max_boxes]`` quatf) and ``half_extents`` (``[E*max_boxes]`` vec2f)
        (RuntimeError without them), and for ``max_boxes > 1`` ``box_position``
        (``[E*max_boxes]`` vec3f; for 1 the position is the box's)."""
        api = f"{self._api}.bind"
        cfg = self.config
        boxes = (cfg.mode == "track" and cfg.collision is not None) or (cfg.mode == "gates" and cfg.post_radius > 0)
        nb = self.num_envs * cfg.max_boxes
        p = as_input(position, api, "position", "vec3f", self.num_envs, alias=True)
        o = h = b = None
        if boxes:
            if orientation is None or half_extents is None:
                raise RuntimeError(f"{api}: this course checks boxes; bind orientation and half_extents too")
            o = as_input(orientation, api, "orientation", "quatf", nb, alias=True)
            h = as_input(half_extents, api, "half_extents", "vec2f", nb, alias=True)
            if cfg.max_boxes > 1:
                if box_position is None:
                    raise RuntimeError(f"{api}: max_boxes > 1 needs box_position [E*max_boxes]")
                b = as_input(box_position, api, "box_position", "vec3f", nb, alias=True)
        self._c.bind(p, o, h, b)
        self._bound = (position, orientation, half_extents, box_position, p, o, h, b)

    def generate(self, seeds: Any = None) -> Union[Track, GateSequence]:
        """Generates the whole batch (reseeded first with ``seeds``: an int k,
        env e gets k + e, or an ``[E]`` int32 array; epochs back to 0) and
        refreshes every helper (progress and localizer restart). Without seeds
        the identical batch is generated again. Returns the generator's result."""
        if seeds is None:
            self._c.generate(None)
        else:
            s = _seeds(seeds, f"{self._api}.generate", self.num_envs)
            if isinstance(s, int):
                self._c.generate(s)
            else:
                self._c.generate_seeds(s)
        self._generated = True
        self._changed()
        return self._output

    def _changed(self) -> None:
        """Marks the regenerated batches changed, for the utilities a user built on them."""
        self._output.mark_changed()
        if self.course_line is not None:
            self.course_line.track.mark_changed()

    def step(self) -> StepResult:
        """Progress, collision and localization of the bound agents (RuntimeError
        before generate() and bind())."""
        if self._bound is None or not self._generated:
            raise RuntimeError(f"{self._api}.step: call generate() and bind(...) first")
        self._c.step()
        return self.result

    def reset(self, mask: Any = None) -> None:
        """Restarts progress and the localizer of the envs with ``mask[e] != 0`` (all for None)."""
        m = _mask(mask, f"{self._api}.reset", self.num_envs)
        self._c.reset(np.ones(self.num_envs, np.int32) if m is None else m)

    def regenerate(self, mask: Any, advance: bool = True) -> Union[Track, GateSequence]:
        """New tracks (gates) for the envs with ``mask[e] != 0``, their epochs
        advanced first when ``advance``; their helpers refreshed, every other
        env bit-identical."""
        if mask is None:
            raise ValueError(f"{self._api}.regenerate: mask is required ([E] int32 or bool)")
        self._c.regenerate(_mask(mask, f"{self._api}.regenerate", self.num_envs), bool(advance))
        self._changed()
        return self._output

    def __repr__(self) -> str:
        return f"Course(mode={self.mode!r}, num_envs={self.num_envs})"

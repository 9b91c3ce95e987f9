"""A sphere (the drone) against the square frames of a gate course
(FrameChecker, FrameContact; gates mode)."""

from __future__ import annotations

import numbers
from typing import Any

from trackgen import _trackgen

from ._array import as_input
from ._batches import GateSequence
from ._results import Result, results_from

__all__ = ["FrameChecker", "FrameContact"]


class FrameContact(Result):
    """``hit`` int32 and ``depth`` float32 (deepest penetration), ``[E]`` each."""


class FrameChecker:
    """``FrameChecker(seq, num_envs, radius, frame_thickness, frame_depth,
    window=4)``: each gate is four boxes around its square opening (posts and
    bars of ``frame_thickness``, ``frame_depth`` deep); per env the ``window``
    gates from the progress target back one are examined. ``bind_inputs(position)``
    (``[E]`` vec3f) and ``bind_window(next_cp)`` (``[E]`` int32, e.g. a
    tracker's ``next_checkpoint_state``), then ``query()`` (RuntimeError until
    both are bound) returns the same FrameContact every call."""

    _api = "track_gen.collision_frames.FrameChecker"

    def __init__(
        self,
        seq: GateSequence,
        num_envs: int,
        radius: float,
        frame_thickness: float,
        frame_depth: float,
        window: int = 4,
    ) -> None:
        api = self._api
        if not isinstance(seq, GateSequence):
            raise ValueError(f"{api}: seq must be a track_gen.GateSequence, got {type(seq).__name__}")
        if num_envs != seq.num_envs:
            raise ValueError(f"{api}: num_envs = {num_envs} but the sequence has {seq.num_envs} envs")
        for name, v in (("radius", radius), ("frame_thickness", frame_thickness), ("frame_depth", frame_depth)):
            if not isinstance(v, numbers.Real) or not v > 0:
                raise ValueError(f"{api}: {name} must be > 0, got {v!r}")
        if isinstance(window, bool) or not isinstance(window, numbers.Integral) or window < 1:
            raise ValueError(f"{api}: window must be an int >= 1, got {window!r}")
        self.seq, self.num_envs = seq, int(num_envs)
        self._c = _trackgen._FrameChecker(
            seq._n, float(radius), float(frame_thickness), float(frame_depth), int(window)
        )
        self.contacts = results_from(FrameContact, self._c.arrays())
        self._position = self._window = None

    def bind_inputs(self, position: Any) -> None:
        """Binds the ``[E]`` vec3f sphere centres (read in place)."""
        p = as_input(position, f"{self._api}.bind_inputs", "position", "vec3f", self.num_envs, alias=True)
        self._c.bind_inputs(p)
        self._position = (position, p)

    def bind_window(self, next_cp: Any) -> None:
        """Binds the ``[E]`` int32 progress targets (read in place)."""
        n = as_input(next_cp, f"{self._api}.bind_window", "next_cp", "int32", self.num_envs, alias=True)
        self._c.bind_window(n)
        self._window = (next_cp, n)

    def query(self) -> FrameContact:
        """Checks every env's sphere against its window of gate frames."""
        if self._position is None or self._window is None:
            raise RuntimeError(f"{self._api}.query: bind_inputs(position) and bind_window(next_cp) first")
        self._c.query()
        return self.contacts

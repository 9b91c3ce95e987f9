"""Checkpoints: gates across the road that a ProgressTracker counts passes of
(CheckpointSet), placed evenly along every track's centerline
(CheckpointSampler)."""

from __future__ import annotations

import numbers
from typing import Any, Optional

from trackgen import _trackgen

from ._array import Array, as_input
from ._batches import GateSequence, Track

__all__ = ["CheckpointSet", "CheckpointSampler"]


class CheckpointSet:
    """Checkpoints, ``[E*M]`` each (env e at ``[e*M, (e+1)*M)``, the first
    ``count[e]`` real): ``position``, ``left``, ``right``, ``tangent`` vec3f (the
    direction of travel, the plane's normal), ``up_half`` float32 (vertical
    half opening), and ``count`` ``[E]`` int32.

    ``CheckpointSet(position, left, right, tangent, up_half, count)`` builds a
    set over your arrays without a copy (C-contiguous float32 / int32; a
    ProgressTracker reads them in place; reset its envs after changing them).
    ``CheckpointSet.from_gates(seq)`` aliases a GateSequence (tangent =
    forward, up_half = half_size). ``clone()`` copies.
    """

    _api = "track_gen.checkpoints.CheckpointSet"

    def __init__(self, position: Any, left: Any, right: Any, tangent: Any, up_half: Any, count: Any) -> None:
        api = self._api
        c = as_input(count, api, "count", "int32", alias=True)
        p = as_input(position, api, "position", "vec3f", alias=True)
        n = len(p)
        arrays = (
            p,
            as_input(left, api, "left", "vec3f", n, alias=True),
            as_input(right, api, "right", "vec3f", n, alias=True),
            as_input(tangent, api, "tangent", "vec3f", n, alias=True),
            as_input(up_half, api, "up_half", "float32", n, alias=True),
            c,
        )
        self._init(_trackgen._CheckpointSet.wrap(*arrays), arrays)

    def _init(self, native: Any, keep: Any = None) -> None:
        self._c = native
        self._keep = keep
        for name, a in native.arrays().items():
            object.__setattr__(self, name, Array(a))

    @classmethod
    def _wrap(cls, native: Any, keep: Any = None) -> "CheckpointSet":
        self = cls.__new__(cls)
        self._init(native, keep)
        return self

    @classmethod
    def from_gates(cls, seq: GateSequence) -> "CheckpointSet":
        """The gates of ``seq`` as checkpoints, aliased (a regenerated sequence is seen without a copy)."""
        if not isinstance(seq, GateSequence):
            raise ValueError(f"{cls._api}.from_gates: seq must be a track_gen.GateSequence, got {type(seq).__name__}")
        return cls._wrap(_trackgen._CheckpointSet.from_gates(seq._n), seq)

    @property
    def num_envs(self) -> int:
        """Envs E."""
        return self._c.num_envs

    @property
    def stride(self) -> int:
        """Slots per env M."""
        return self._c.stride

    def clone(self) -> "CheckpointSet":
        """An independent deep copy."""
        return CheckpointSet._wrap(self._c.clone())

    def __repr__(self) -> str:
        return f"CheckpointSet(num_envs={self.num_envs}, stride={self.stride})"


class CheckpointSampler:
    """Evenly spaced checkpoints along every track's centerline.

    ``CheckpointSampler(track, spacing, max_checkpoints=None)``: env e gets
    ``n = round(length / spacing)`` checkpoints (at least 3, at most the
    capacity M, which then spaces them ``length / M`` apart and sets
    ``truncated[e]``), checkpoint k at arc length ``k * length / n``, its ends
    the inner (left) and outer (right) borders there, ``up_half = 1e30``.
    ``max_checkpoints`` (>= 3) is M; None derives it from the track's stride:
    ``max(3, ceil(1.25 * N_max * s / spacing))`` with ``s`` the largest point
    spacing of a valid env (the original used 1.5 x the longest perimeter of
    the first batch; ValueError when no env is valid). Samples at
    construction; ``sample()`` again after the track was regenerated.
    ``checkpoints`` (the set), ``truncated`` and ``step`` (``[E]``) are the
    same objects every call.
    """

    _api = "track_gen.checkpoints.CheckpointSampler"

    def __init__(self, track: Track, spacing: float, max_checkpoints: Optional[int] = None) -> None:
        api = self._api
        if not isinstance(track, Track):
            raise ValueError(f"{api}: track must be a track_gen.Track, got {type(track).__name__}")
        if not isinstance(spacing, numbers.Real) or not spacing > 0:
            raise ValueError(f"{api}: spacing must be > 0, got {spacing!r}")
        if max_checkpoints is not None and (
            isinstance(max_checkpoints, bool)
            or not isinstance(max_checkpoints, numbers.Integral)
            or max_checkpoints < 3
        ):
            raise ValueError(f"{api}: max_checkpoints must be None or an int >= 3, got {max_checkpoints!r}")
        self.track = track
        self.spacing = float(spacing)
        self._c = _trackgen._CheckpointSampler(track._n, float(spacing), max_checkpoints)
        self.checkpoints = CheckpointSet._wrap(self._c.checkpoints(), self)
        arrays = self._c.arrays()
        self.truncated = Array(arrays["truncated"])
        self.step = Array(arrays["step"])

    @property
    def max_checkpoints(self) -> int:
        """The capacity M."""
        return self._c.capacity

    def sample(self) -> CheckpointSet:
        """Re-places every env's checkpoints from the track; returns ``checkpoints``."""
        self._c.sample()
        return self.checkpoints

"""Rendering-only instances along a border of every track (PropSampler, PropSet)."""

from __future__ import annotations

import numbers
from typing import Optional

from trackgen import _trackgen

from ._batches import Track
from ._results import Result, results_from

__all__ = ["PropSampler", "PropSet"]


class PropSet(Result):
    """The instances, ``[E*max_props]`` each: ``position`` vec3f, ``tangent``
    vec2f (plan-view unit direction), ``yaw``, ``length`` float32; per env
    ``[E]``: ``count``, ``truncated`` int32, ``step`` float32."""


class PropSampler:
    """Evenly spaced props along one border (kerbs, barriers, lights).

    ``PropSampler(track, spacing, boundary="outer", mode="points",
    max_props=None)``: ``boundary`` "inner" or "outer"; ``mode`` "points" (the
    point at arc length k * step) or "segments" (the chord to the next one).
    Env e gets ``round(perimeter / spacing)`` props (at least 3, at most
    ``max_props``, else ``truncated[e]``). ``max_props`` None derives the
    capacity from the track's stride (``1.25 * N_max`` times the largest
    border perimeter per point of a valid env, over ``spacing``; the original
    used 1.5 x the longest perimeter of the first batch). Samples at
    construction; ``sample()`` returns the same PropSet every call.
    """

    _api = "track_gen.props.PropSampler"

    def __init__(
        self,
        track: Track,
        spacing: float,
        boundary: str = "outer",
        mode: str = "points",
        max_props: Optional[int] = None,
    ) -> None:
        api = self._api
        if not isinstance(track, Track):
            raise ValueError(f"{api}: track must be a track_gen.Track, got {type(track).__name__}")
        if not isinstance(spacing, numbers.Real) or not spacing > 0:
            raise ValueError(f"{api}: spacing must be > 0, got {spacing!r}")
        if boundary not in ("inner", "outer"):
            raise ValueError(f"{api}: boundary must be 'inner' or 'outer', got {boundary!r}")
        if mode not in ("points", "segments"):
            raise ValueError(f"{api}: mode must be 'points' or 'segments', got {mode!r}")
        if max_props is not None and (
            isinstance(max_props, bool) or not isinstance(max_props, numbers.Integral) or max_props < 3
        ):
            raise ValueError(f"{api}: max_props must be None or an int >= 3, got {max_props!r}")
        self.track, self.spacing, self.boundary, self.mode = track, float(spacing), boundary, mode
        self._c = _trackgen._PropSampler(track._n, float(spacing), boundary, mode, max_props)
        self.props = results_from(PropSet, self._c.arrays())

    @property
    def max_props(self) -> int:
        """The capacity per env."""
        return self._c.capacity

    def sample(self) -> PropSet:
        """Re-samples every env from the track; returns ``props``."""
        self._c.sample()
        return self.props

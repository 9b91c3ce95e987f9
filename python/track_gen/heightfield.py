"""A per-env height map of the ground under and around every track
(HeightFieldBaker, HeightField)."""

from __future__ import annotations

import numbers
from typing import Optional

from trackgen import _trackgen

from ._batches import Track
from ._results import Result, results_from

__all__ = ["HeightFieldBaker", "HeightField"]


class HeightField(Result):
    """``height`` ``[E*res*res]`` float32 (row-major ``[y][x]`` per env), the
    grid's box ``lo``, ``hi`` ``[E]`` vec2f, and ``res`` texels per side. Texel
    (x, y) is centred at ``lo + ((x, y) + 0.5) / res * (hi - lo)``."""


class HeightFieldBaker:
    """``HeightFieldBaker(track, resolution=128, padding=None)``: every texel
    holds the height of the plan-view nearest centerline point (no cliff at
    the road's edges), over the box of the outer border padded by ``padding``
    (None: 10% of its larger side). Invalid envs and envs of fewer than 3
    points are NaN. Bakes at construction; ``bake()`` (after a regeneration)
    returns the same HeightField."""

    _api = "track_gen.heightfield.HeightFieldBaker"

    def __init__(self, track: Track, resolution: int = 128, padding: Optional[float] = None) -> None:
        api = self._api
        if not isinstance(track, Track):
            raise ValueError(f"{api}: track must be a track_gen.Track, got {type(track).__name__}")
        if isinstance(resolution, bool) or not isinstance(resolution, numbers.Integral) or resolution < 8:
            raise ValueError(f"{api}: resolution must be an int >= 8, got {resolution!r}")
        if padding is not None and not (isinstance(padding, numbers.Real) and padding > 0):
            raise ValueError(f"{api}: padding must be None or > 0, got {padding!r}")
        self.track = track
        self.resolution = int(resolution)
        self._c = _trackgen._HeightFieldBaker(track._n, int(resolution), padding)
        self.heightfield = results_from(HeightField, self._c.arrays(), res=int(resolution))

    def bake(self) -> HeightField:
        """Re-bakes every env; returns ``heightfield``."""
        self._c.bake()
        return self.heightfield

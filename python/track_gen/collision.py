"""Collision of boxes (cars) against the drivable band of a Track
(CollisionChecker, BoxContact) and against disc obstacles (DiscChecker,
DiscContact). Inputs are ``[E*max_boxes]``: position vec3f (z ignored, NaN: an
inactive slot), orientation quatf (x, y, z, w; its yaw about +z is used),
half_extents vec2f. Bound mode (``bind_inputs`` once, then ``query()``) reads
your arrays in place at every call; per-call mode passes them to ``query``."""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np

from trackgen import _trackgen

from ._array import Array, as_input
from ._batches import Track
from ._results import Result, results_from

__all__ = ["CollisionChecker", "BoxContact", "DiscChecker", "DiscContact"]


class BoxContact(Result):
    """Contacts of every box, ``[E*max_boxes]`` each: ``oob`` int32 (1: out of
    the band or cutting a border), ``distance`` float32 (clearance, minus the
    deepest penetration when out, 0 when only an edge crosses), ``nearest``
    vec2f (closest border point), ``normal`` vec2f (into the band),
    ``boundary`` int32 (0 inner, 1 outer, -1 inactive or degenerate)."""


class DiscContact(Result):
    """Disc contacts of every box, ``[E*max_boxes]`` each: ``hit`` int32,
    ``disc`` int32 (slot of the deepest disc, -1 none), ``depth`` float32 (>= 0),
    ``nearest`` vec2f (its rim point towards the box; NaN without a hit)."""


def _positive_int(value: Any, api: str, name: str, lo: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or int(value) < lo:
        raise ValueError(f"{api}: {name} must be an int >= {lo}, got {value!r}")
    return int(value)


class _BoxQueries:
    """bind_inputs / query of the box checkers (``_c``: the native checker, ``_n``: E*max_boxes)."""

    _api = ""
    _c: Any = None
    _n = 0
    contacts: Any = None

    def _bind_given(self, position: Any, orientation: Any, half_extents: Any) -> None:
        given = [x is not None for x in (position, orientation, half_extents)]
        if any(given) and not all(given):
            raise ValueError(f"{self._api}: bind position, orientation and half_extents together (all or none)")
        if all(given):
            self.bind_inputs(position, orientation, half_extents)

    def _before_query(self) -> None:
        pass

    def bind_inputs(self, position: Any, orientation: Any, half_extents: Any) -> None:
        """Bound mode: every ``query()`` reads these ``[E*max_boxes]`` arrays in place
        (C-contiguous float32: vec3f, quatf, vec2f; kept alive by the checker)."""
        api = f"{self._api}.bind_inputs"
        p = as_input(position, api, "position", "vec3f", self._n, alias=True)
        o = as_input(orientation, api, "orientation", "quatf", self._n, alias=True)
        h = as_input(half_extents, api, "half_extents", "vec2f", self._n, alias=True)
        self._c.bind_inputs(p, o, h)
        self._bound = (position, orientation, half_extents, p, o, h)

    def query(self, position: Any = None, orientation: Any = None, half_extents: Any = None):
        """The contacts of the bound boxes (no arguments), or of the boxes given
        (per-call mode; all three). Returns the same result object every call."""
        self._before_query()
        if position is None and orientation is None and half_extents is None:
            self._c.query()
            return self.contacts
        api = f"{self._api}.query"
        if position is None or orientation is None or half_extents is None:
            raise ValueError(f"{api}: pass position, orientation and half_extents together (or none: bound mode)")
        self._c.query_arrays(
            as_input(position, api, "position", "vec3f", self._n),
            as_input(orientation, api, "orientation", "quatf", self._n),
            as_input(half_extents, api, "half_extents", "vec2f", self._n),
        )
        return self.contacts


class CollisionChecker(_BoxQueries):
    """Oriented boxes against the drivable band of ``track`` (between its inner
    and outer borders, in plan view).

    ``CollisionChecker(track, max_boxes, method="segments", sdf_resolution=128,
    sdf_padding=None, position=None, orientation=None, half_extents=None)``:
    ``method`` "segments" (exact; sees a regenerated track at once) or "sdf"
    (a signed distance field per env baked here; ``bake()`` after a
    regeneration). The track is aliased. ``query()`` returns the BoxContact
    (``contacts``, the same object every call).

    The segments method reads a grid of the border segments near each place
    (built here). Its first query after the track changed rebuilds it: after
    a ``generate()`` or a write through the track's Arrays; after writing the
    points any other way, call ``track.mark_changed()``.
    """

    _api = "track_gen.collision.CollisionChecker"

    def __init__(
        self,
        track: Track,
        max_boxes: int,
        method: str = "segments",
        sdf_resolution: int = 128,
        sdf_padding: Optional[float] = None,
        position: Any = None,
        orientation: Any = None,
        half_extents: Any = None,
    ) -> None:
        api = self._api
        if not isinstance(track, Track):
            raise ValueError(f"{api}: track must be a track_gen.Track, got {type(track).__name__}")
        max_boxes = _positive_int(max_boxes, api, "max_boxes", 1)
        if method not in ("segments", "sdf"):
            raise ValueError(f"{api}: method must be 'segments' or 'sdf', got {method!r}")
        sdf_resolution = _positive_int(sdf_resolution, api, "sdf_resolution", 8)
        if sdf_padding is not None and not (isinstance(sdf_padding, numbers.Real) and sdf_padding > 0):
            raise ValueError(f"{api}: sdf_padding must be None or > 0, got {sdf_padding!r}")
        self.track = track
        self.max_boxes = max_boxes
        self.method = method
        self._n = track.num_envs * max_boxes
        self._c = _trackgen._CollisionChecker(track._n, max_boxes, method, sdf_resolution, sdf_padding)
        self._grid_revision = track._revision  # the track's revision the border grids were built from
        arrays = self._c.arrays()
        self.contacts = results_from(BoxContact, arrays)
        self.sdf = results_from(Result, arrays, "sdf.", resolution=sdf_resolution) if method == "sdf" else None
        self._bind_given(position, orientation, half_extents)

    def _before_query(self) -> None:
        if self.method == "segments" and self.track._revision != self._grid_revision:
            self._c.bake()  # the border grids, from the changed track
            self._grid_revision = self.track._revision

    def bake(self) -> None:
        """Re-bakes the signed distance field from the track (sdf method; ValueError for segments)."""
        if self.method != "sdf":
            raise ValueError(f"{self._api}.bake: the segments method has no field to bake")
        self._c.bake()


class DiscChecker(_BoxQueries):
    """Oriented boxes against disc obstacles of one radius (cones, gate posts).

    ``DiscChecker(discs, radius, max_boxes, num_envs=None, count=None,
    position=None, orientation=None, half_extents=None)``: ``discs`` ``[E*D]``
    vec3f, aliased (a NaN slot is skipped); ``count`` ``[E]`` int32 (aliased;
    env e uses its first count[e] slots) or ``num_envs`` (every slot). Gate
    posts: interleave ``left`` and ``right`` (``posts[2i] = left[i]``,
    ``posts[2i+1] = right[i]``); then ``gate = disc // 2``.
    """

    _api = "track_gen.collision.DiscChecker"

    def __init__(
        self,
        discs: Any,
        radius: float,
        max_boxes: int,
        num_envs: Optional[int] = None,
        count: Any = None,
        position: Any = None,
        orientation: Any = None,
        half_extents: Any = None,
    ) -> None:
        api = self._api
        d = as_input(discs, api, "discs", "vec3f", alias=True)
        max_boxes = _positive_int(max_boxes, api, "max_boxes", 1)
        if not (isinstance(radius, numbers.Real) and radius > 0):
            raise ValueError(f"{api}: radius must be > 0, got {radius!r}")
        c = None
        if count is not None:
            c = as_input(count, api, "count", "int32", alias=True)
            if num_envs is not None and int(num_envs) != len(c):
                raise ValueError(f"{api}: num_envs = {num_envs} disagrees with count's {len(c)} envs")
            num_envs = len(c)
        elif num_envs is None:
            raise ValueError(f"{api}: num_envs is required without count")
        num_envs = _positive_int(num_envs, api, "num_envs", 1)
        self._keep = (discs, d, count, c)
        self.num_envs = num_envs
        self.max_boxes = max_boxes
        self.radius = float(radius)
        self._n = num_envs * max_boxes
        self._c = _trackgen._DiscChecker(d, float(radius), max_boxes, num_envs, c)
        self.contacts = results_from(DiscContact, self._c.arrays())
        self._bind_given(position, orientation, half_extents)

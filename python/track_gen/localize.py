"""Where an agent is on its track (TrackLocalizer, TrackFrame), and how fast
the track can be driven (curvature, speed_profile)."""

from __future__ import annotations

import numbers
from typing import Any, Optional

from trackgen import _trackgen

from ._array import Array, as_input
from ._batches import Track
from ._results import Result, results_from
from .progress import _mask

__all__ = ["TrackLocalizer", "TrackFrame", "curvature", "speed_profile"]


class TrackFrame(Result):
    """The localization of every env, ``[E]`` each: ``s`` (arc length of the
    nearest centerline point, in [0, length)), ``n`` (lateral offset, positive
    to the RIGHT of travel), ``n_up`` (vertical offset) float32, ``segment``
    int32 (-1: none)."""


def _check_track(track: Any, api: str) -> None:
    if not isinstance(track, Track):
        raise ValueError(f"{api}: track must be a track_gen.Track, got {type(track).__name__}")


class TrackLocalizer:
    """Nearest centerline point of every env's agent.

    ``TrackLocalizer(track, warm_window=None, position=None,
    relock_distance=None)``: cold (every segment) without ``warm_window``,
    warm with a window W >= 1 around the last segment. Unlike the original, a
    warm result on the window's edge or farther than ``relock_distance``
    (TrackGen's addition; None: no bound) searches the whole ring again, so a
    warm localizer cannot stay on a stale branch. ``query()`` (bound) or
    ``query(position)`` returns the TrackFrame (same object every call);
    ``reset(mask)`` forgets the last segment (after a regeneration or a
    teleport).
    """

    _api = "track_gen.localize.TrackLocalizer"

    def __init__(
        self,
        track: Track,
        warm_window: Optional[int] = None,
        position: Any = None,
        relock_distance: Optional[float] = None,
    ) -> None:
        api = self._api
        _check_track(track, api)
        if warm_window is not None and (
            isinstance(warm_window, bool) or not isinstance(warm_window, numbers.Integral) or warm_window < 1
        ):
            raise ValueError(f"{api}: warm_window must be None or an int >= 1, got {warm_window!r}")
        self.track = track
        self.warm_window = warm_window
        self.num_envs = track.num_envs
        self._c = _trackgen._TrackLocalizer(track._n, warm_window, relock_distance)
        arrays = self._c.arrays()
        self.frame = results_from(TrackFrame, {k: v for k, v in arrays.items() if k != "last_segment"})
        self.last_segment = Array(arrays["last_segment"])
        if position is not None:
            self.bind(position)

    def bind(self, position: Any) -> None:
        """Bound mode: every query() reads these ``[E]`` vec3f positions in place."""
        p = as_input(position, f"{self._api}.bind", "position", "vec3f", self.num_envs, alias=True)
        self._c.bind(p)
        self._bound = (position, p)

    def query(self, position: Any = None) -> TrackFrame:
        """Localizes every env's agent (the bound positions without an argument)."""
        if position is None:
            self._c.query()
        else:
            self._c.query_arrays(as_input(position, f"{self._api}.query", "position", "vec3f", self.num_envs))
        return self.frame

    def reset(self, mask: Any = None) -> None:
        """Forgets the last segment of the envs with ``mask[e] != 0`` (all for None)."""
        self._c.reset(_mask(mask, f"{self._api}.reset", self.num_envs))


def curvature(track: Track, window: int = 2) -> Array:
    """A new ``[E*N_max]`` float32 Array: the signed curvature at every point,
    ``atan2((v1 x v2).z, v1 . v2) / max((|v1| + |v2|) / 2, 1e-9)`` (CCW
    positive), averaged over ``2 window + 1`` points (0: none); NaN past
    ``count`` and for tracks of fewer than 3 points."""
    _check_track(track, "track_gen.localize.curvature")
    if isinstance(window, bool) or not isinstance(window, numbers.Integral):
        raise ValueError(f"track_gen.localize.curvature: window must be an int >= 0, got {window!r}")
    return Array(_trackgen.curvature(track._n, int(window)))


def speed_profile(
    track: Track,
    a_lat_max: float,
    a_accel: float,
    a_brake: float,
    v_cap: float,
    kappa: Any = None,
    window: int = 2,
) -> Array:
    """A new ``[E*N_max]`` float32 Array: the fastest speed at every point,
    ``min(sqrt(a_lat_max / |kappa|), v_cap)`` then twice a forward
    (``a_accel``) and a backward (``a_brake``) pass around the loop.
    ``kappa``: a ``[E*N_max]`` float32 curvature (None: ``curvature(track,
    window)``). ValueError unless ``a_lat_max > 0``, ``a_accel >= 0``,
    ``a_brake >= 0``, ``v_cap > 0``."""
    api = "track_gen.localize.speed_profile"
    _check_track(track, api)
    for name, v, lo_open in (
        ("a_lat_max", a_lat_max, True),
        ("a_accel", a_accel, False),
        ("a_brake", a_brake, False),
        ("v_cap", v_cap, True),
    ):
        if not isinstance(v, numbers.Real) or not (v > 0 if lo_open else v >= 0):
            raise ValueError(f"{api}: {name} must be {'> 0' if lo_open else '>= 0'}, got {v!r}")
    k = None
    if kappa is not None:
        k = as_input(kappa, api, "kappa", "float32", track.num_envs * track.N_max)
    return Array(
        _trackgen.speed_profile(
            track._n, float(a_lat_max), float(a_accel), float(a_brake), float(v_cap), k, int(window)
        )
    )

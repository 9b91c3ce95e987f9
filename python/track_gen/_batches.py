"""Track and GateSequence: flat, NaN-padded batches whose fields are Arrays over
the library's memory (a producer's, a clone's) or over your own arrays."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from trackgen import _trackgen
from trackgen._common import check_env_index

from ._array import Array, as_input

__all__ = ["Track", "GateSequence"]


def _kind(components: int, dtype: str) -> str:
    return {1: dtype, 2: "vec2f", 3: "vec3f", 4: "quatf"}[components]


class _Batch:
    """A batch over a native container (``_n``) whose field list is ``_native_cls.fields``."""

    _native_cls: Any = None
    _api = ""
    _stride_kw = ""

    def __init__(self, *args: Any, num_envs: Optional[int] = None, **kwargs: Any) -> None:
        api = self._api
        infos = self._native_cls.fields
        names = [f[0] for f in infos]
        stride = kwargs.pop(self._stride_kw, None)
        if len(args) > len(names):
            raise TypeError(f"{api}: at most {len(names)} positional fields ({', '.join(names)})")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{api}: unknown field {k!r}; the fields are {', '.join(names)}")
            if k in given:
                raise TypeError(f"{api}: field {k!r} given twice")
            given[k] = v
        given = {k: v for k, v in given.items() if v is not None}
        arrays = {}
        for name, per_point, components, dtype in infos:
            if name in given:
                a = as_input(given[name], api, name, _kind(components, dtype))
                arrays[name] = a
        per_env = [arrays[n] for n, pp, _, _ in infos if n in arrays and not pp]
        per_point = [arrays[n] for n, pp, _, _ in infos if n in arrays and pp]
        if num_envs is None:
            if not per_env:
                raise ValueError(f"{api}: give num_envs or a per-env field (count, valid, ...)")
            num_envs = len(per_env[0])
        if stride is None:
            if not per_point:
                raise ValueError(f"{api}: give {self._stride_kw} or a per-point field")
            stride = len(per_point[0]) // max(int(num_envs), 1)
        native = self._native_cls._from_arrays(arrays, int(num_envs), int(stride))
        self._init(native, arrays)

    def _init(self, native: Any, keep: Any = None) -> None:
        self._n = native
        self._keep = keep  # the caller's arrays the native fields alias
        self._arrays = {}
        self._revision = 0  # counts the writes utilities must see (mark_changed)

    @classmethod
    def _wrap(cls, native: Any):
        self = cls.__new__(cls)
        self._init(native)
        return self

    def _field(self, name: str) -> Array:
        a = self._arrays.get(name)
        if a is None:
            a = self._arrays[name] = Array(getattr(self._n, name), owner=self)
        return a

    def mark_changed(self) -> None:
        """Tells the utilities built on this batch that its values changed.
        ``generate()`` and the writes through its Arrays (``a[i] = ...``,
        ``assign()``, ``zero_()``, ``fill_()``) call it; call it yourself after
        writing through a numpy view (``numpy()``, ``np.asarray``, DLPack) or
        into your own arrays that a batch built from arrays uses. A segments
        CollisionChecker rebuilds its border grids at its next query after it."""
        self._revision += 1

    @property
    def num_envs(self) -> int:
        """Envs E."""
        return self._n.num_envs

    def clone(self):
        """An independent deep copy (later generations do not change it)."""
        return type(self)._wrap(self._n.clone())


def _add_fields(cls: type, stride: str) -> None:
    for name, per_point, components, dtype in cls._native_cls.fields:
        kind = _kind(components, dtype)
        rows = f"E*{stride}" if per_point else "E"
        doc = f"[{rows}] {kind}: the C++ field ``{name}`` (an Array over the batch's memory)."
        setattr(cls, name, property(lambda self, _n=name: self._field(_n), doc=doc))
    cls.fields = tuple(f[0] for f in cls._native_cls.fields)


class Track(_Batch):
    """One batch of E tracks (the output of ``TrackGenerator.generate``).

    Per-point fields (``outer``, ``center``, ``inner``, ``tangent``, ``normal``
    ``[E*N_max]`` vec3f, ``arclen`` ``[E*N_max]`` float32) hold env ``e`` in
    entries ``[e*N_max, (e+1)*N_max)``, the first ``count[e]`` real, the rest
    NaN; per-env fields: ``length``, ``winding`` float32, ``valid``, ``count``
    int32, and TrackGen's diagnostics ``truncated``, ``sep_overflow``,
    ``invalid_reason`` (int32). ``Track.fields`` lists them in order.

    ``Track(outer, center, inner, tangent, normal, arclen, length, valid, count,
    winding)`` (positional or by keyword; numpy, torch or Warp arrays, lists)
    builds a Track over your arrays: C-contiguous float32 / int32 arrays are
    used without a copy (your writes are seen by every utility built on it),
    others are copied once. Fields you leave out start empty (NaN points,
    zeros). ``num_envs=`` and ``N_max=`` are needed only when no per-env or
    per-point field says them.

    A generator's Track is refilled in place by every ``generate()`` (same
    object, same memory; its arrays are writable as in the original, but a
    write to a padding entry survives until a later batch makes it real);
    ``clone()`` keeps a batch.
    """

    _native_cls = _trackgen._Track
    _api = "track_gen.Track"
    _stride_kw = "N_max"

    @property
    def N_max(self) -> int:
        """Per-env stride of the per-point fields."""
        return self._n.n_max

    n_max = N_max

    def points(self, env: int, field: str = "center") -> np.ndarray:
        """The ``count[env]`` real entries of a per-point field of env ``env`` (a numpy view)."""
        return _points(self, env, field, self.N_max)

    def __repr__(self) -> str:
        return f"Track(num_envs={self.num_envs}, N_max={self.N_max})"


class GateSequence(_Batch):
    """One batch of E gate courses (the output of ``GateGenerator.generate``).

    Per-gate fields ``[E*G]`` (``G = max_gates``): ``position``, ``tangent``,
    ``forward``, ``left``, ``right`` vec3f, ``orientation`` quatf (x, y, z, w),
    ``half_size`` float32; per-env ``valid``, ``count`` int32 (``fields`` lists
    them). NaN past ``count[e]``. Built from arrays like Track (``max_gates=``
    when no per-gate field is given); refilled in place by ``generate()``;
    ``clone()`` keeps a batch.
    """

    _native_cls = _trackgen._Gates
    _api = "track_gen.GateSequence"
    _stride_kw = "max_gates"

    @property
    def max_gates(self) -> int:
        """Per-env stride G of the per-gate fields."""
        return self._n.max_gates

    def points(self, env: int, field: str = "position") -> np.ndarray:
        """The ``count[env]`` real entries of a per-gate field of env ``env`` (a numpy view)."""
        return _points(self, env, field, self.max_gates)

    def __repr__(self) -> str:
        return f"GateSequence(num_envs={self.num_envs}, max_gates={self.max_gates})"


def _points(batch: _Batch, env: Any, field: str, stride: int) -> np.ndarray:
    api = f"{batch._api}.points"
    env = check_env_index(env, batch.num_envs, api)
    if field not in batch.fields:
        raise ValueError(f"{api}: unknown field {field!r}")
    n = int(batch.count.numpy()[env])
    return getattr(batch, field).numpy()[env * stride : env * stride + n]


_add_fields(Track, "N_max")
_add_fields(GateSequence, "G")

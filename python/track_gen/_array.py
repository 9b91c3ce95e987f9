"""Arrays in the original package's style over the library's memory, and the
conversion of user inputs (numpy arrays, anything with ``__array__`` or
``__dlpack__``, lists) into the C-contiguous arrays the extension aliases."""

from __future__ import annotations

import weakref
from typing import Any, Optional

import numpy as np

from trackgen._common import LibraryArray

__all__ = ["Array", "VecType", "vec2f", "vec3f", "quatf", "float32", "int32", "int8"]


class VecType:
    """The dtype of an array of small float vectors (``vec2f``, ``vec3f``, ``quatf``):
    ``_length_`` floats per entry, stored packed."""

    __slots__ = ("_name", "_length_")

    def __init__(self, name: str, length: int) -> None:
        self._name = name
        self._length_ = length

    _type_ = np.float32

    @property
    def _shape_(self) -> tuple:
        return (self._length_,)

    def __repr__(self) -> str:
        return self._name


vec2f = VecType("vec2f", 2)
vec3f = VecType("vec3f", 3)
quatf = VecType("quatf", 4)
float32 = np.dtype(np.float32)
int32 = np.dtype(np.int32)
int8 = np.dtype(np.int8)

_VEC_BY_LENGTH = {2: vec2f, 3: vec3f, 4: quatf}


class Array:
    """An array of scalars or small vectors (flat ``[n]`` for the library's batches
    and results; the RNG's samples have more dimensions) over memory that the
    library (or your own array) owns, used like the original package's arrays:
    ``shape == (n,)``, ``dtype`` (``vec3f``, ``quatf``, ``vec2f``, float32,
    int32), ``len()``, ``numpy()`` (a view without a copy: ``[n]`` or
    ``[n, k]`` float32 for vectors), ``np.asarray``, ``__dlpack__`` (so
    ``torch.from_dlpack`` shares the memory), indexing and in-place writes
    (``a[i] = ...``, ``assign()``, ``zero_()``, ``fill_()``).

    The memory is rewritten in place by the object that produced it (a
    generator's ``generate()``, a checker's ``query()``): a reader in another
    thread may see it change; copy with ``numpy().copy()`` (or the result's
    ``clone()``) to keep values."""

    __slots__ = ("_np", "_dtype", "_vec", "_owner", "__weakref__")

    def __init__(self, data: np.ndarray, dtype: Any = None, owner: Any = None) -> None:
        self._np = data
        # The batch (Track, GateSequence) whose field this is, weakly (the batch
        # holds its Arrays): writes mark it changed.
        self._owner = None if owner is None else weakref.ref(owner)
        if dtype is None:
            dtype = _VEC_BY_LENGTH[data.shape[1]] if data.ndim == 2 else data.dtype
        self._dtype = dtype
        self._vec = isinstance(dtype, VecType)

    # --- what the original's arrays offer
    @property
    def shape(self) -> tuple:
        """The entries' shape (``(n,)`` for a batch field; a vector counts as one entry)."""
        return self._np.shape[:-1] if self._vec else self._np.shape

    @property
    def dtype(self) -> Any:
        """``vec2f``, ``vec3f``, ``quatf`` or a numpy scalar dtype."""
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def device(self) -> str:
        """Where the memory lives: ``"cpu"`` on a host build."""
        return "cpu"

    @property
    def ptr(self) -> int:
        """Address of the first entry."""
        return self._np.__array_interface__["data"][0]

    @property
    def strides(self) -> tuple:
        return self._np.strides[: self.ndim]

    @property
    def is_contiguous(self) -> bool:
        return bool(self._np.flags.c_contiguous)

    def numpy(self) -> np.ndarray:
        """The memory as a numpy array without a copy (``[n]``, or ``[n, k]`` for vectors)."""
        return self._np

    def list(self) -> list:
        """The entries as a Python list (a copy)."""
        return self._np.tolist()

    def to(self, device: str) -> "Array":
        """This array for ``device == "cpu"``; ValueError otherwise (a host build)."""
        if str(device) != "cpu":
            raise ValueError(f"track_gen.Array.to: this build of track_gen has host memory only, got device {device!r}")
        return self

    def assign(self, src: Any) -> None:
        """Copies ``src`` (same shape) into this array in place."""
        a = _as_numpy(src, "track_gen.Array.assign", "src")
        if a.shape != self._np.shape:
            raise ValueError(f"track_gen.Array.assign: src must have shape {self._np.shape}, got {a.shape}")
        self._np[...] = a
        self._changed()

    def zero_(self) -> None:
        """Writes zeros into every entry."""
        self._np[...] = 0
        self._changed()

    def fill_(self, value: Any) -> None:
        """Writes ``value`` (a scalar, or one vector) into every entry."""
        self._np[...] = value
        self._changed()

    def __len__(self) -> int:
        return self._np.shape[0]

    def __getitem__(self, index: Any) -> Any:
        return self._np[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        self._np[index] = value
        self._changed()

    def _changed(self) -> None:
        owner = None if self._owner is None else self._owner()
        if owner is not None:
            owner.mark_changed()

    def __iter__(self):
        return iter(self._np)

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        a = self._np if dtype is None else self._np.astype(dtype, copy=False)
        return a.copy() if copy else a

    @property
    def __array_interface__(self) -> dict:
        return self._np.__array_interface__

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None):
        """DLPack export of the memory (no copy), for ``torch.from_dlpack``, ``np.from_dlpack``, ..."""
        return LibraryArray.__dlpack__(
            self._np.view(LibraryArray), stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self) -> tuple:
        return self._np.__dlpack_device__()

    def __repr__(self) -> str:
        return f"Array(shape={self.shape}, dtype={self._dtype}, device='cpu')"


def _as_numpy(value: Any, api: str, name: str, dtype: Any = None) -> np.ndarray:
    """``value`` as a numpy array without a copy where possible: an Array, a
    numpy array, an object with ``__array__`` / ``__array_interface__`` (torch
    CPU tensors, Warp CPU arrays) or ``__dlpack__``, or a list / tuple
    (converted to ``dtype``). ValueError naming ``name`` for anything else."""
    if isinstance(value, Array):
        return value._np
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):
        try:
            return np.asarray(value, dtype=dtype)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{api}: {name} is a list that is not a {dtype} array: {err}") from None
    if hasattr(value, "__array__") or hasattr(value, "__array_interface__"):
        return np.asarray(value)
    if hasattr(value, "__dlpack__"):
        try:
            return np.from_dlpack(value)
        except (BufferError, RuntimeError, TypeError) as err:
            raise ValueError(f"{api}: {name} is not a host array numpy can read ({err})") from None
    raise ValueError(f"{api}: {name} must be an array (numpy, torch, Warp, a list, ...), got {type(value).__name__}")


#: What an input of each kind holds per entry: (numpy dtype, components).
KINDS = {
    "vec3f": (np.float32, 3),
    "quatf": (np.float32, 4),
    "vec2f": (np.float32, 2),
    "float32": (np.float32, 1),
    "int32": (np.int32, 1),
    "ints": (np.int32, 1),  # seeds, ids, masks: any integer or bool dtype, converted when it fits int32
}


def as_input(value: Any, api: str, name: str, kind: str, n: Optional[int] = None, alias: bool = False) -> np.ndarray:
    """``value`` as a C-contiguous ``[n]`` (scalars) or ``[n, k]`` (vectors)
    numpy array of ``kind`` (``vec3f``, ``quatf``, ``vec2f``, ``float32``,
    ``int32``; ``ints``: int32 from any integer or bool dtype whose values fit), checked in the original's order: type, shape, dtype, device.
    ``n`` None accepts any length. ``alias``: the library will read this
    memory later (bound inputs), so it must be C-contiguous already (no copy
    is made). ValueError naming ``api`` and ``name`` otherwise."""
    dtype, k = KINDS[kind]
    a = _as_numpy(value, api, name, dtype)
    want = (n if n is not None else "n",) + ((k,) if k > 1 else ())
    if k > 1 and a.ndim == 1 and a.dtype.names is None and n is not None and a.shape[0] == n * k:
        a = a.reshape(n, k)  # a flat buffer of n packed vectors
    ok = a.ndim == (2 if k > 1 else 1) and (k == 1 or a.shape[1] == k) and (n is None or a.shape[0] == n)
    if not ok:
        raise ValueError(f"{api}: {name} must have shape {want} ({kind}), got {a.shape}")
    if kind == "ints" and a.dtype != dtype and (a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer)):
        if a.size and a.dtype != np.bool_ and (a.min() < -(2**31) or a.max() > 2**31 - 1):
            raise ValueError(f"{api}: {name} has values outside int32 ([{a.min()}, {a.max()}])")
        a = a.astype(np.int32)
    if a.dtype != dtype:
        raise ValueError(f"{api}: {name} must be {np.dtype(dtype).name} ({kind}), got dtype {a.dtype}")
    if not a.flags.c_contiguous:
        if alias:
            raise ValueError(f"{api}: {name} must be C-contiguous (it is read in place at every call)")
        a = np.ascontiguousarray(a)
    return a

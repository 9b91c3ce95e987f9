"""Result objects of the runtime utilities: preallocated, returned by identity
every call and overwritten in place; their fields are Arrays over the
library's memory, named as the C++ result structs' fields; each has clone()."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ._array import Array

__all__ = ["Result", "results_from"]


class Result:
    """Fields (Arrays) by name; ``clone()`` copies them into an independent result."""

    _fields: tuple = ()

    def __init__(self, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_fields", tuple(fields))

    def clone(self):
        """An independent copy of every array (later calls do not change it)."""
        copy = {}
        for name in self._fields:
            v = getattr(self, name)
            copy[name] = Array(v.numpy().copy(), v.dtype) if isinstance(v, Array) else v
        return type(self)(**copy)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._fields:
            raise AttributeError(f"{type(self).__name__}.{name} is the library's array; write into it in place")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._fields)})"


def results_from(cls: type, arrays: Mapping[str, np.ndarray], prefix: str = "", **extra: Any):
    """An instance of ``cls`` over the arrays named ``prefix + field`` of ``arrays``."""
    fields = {
        k[len(prefix) :]: Array(v) for k, v in arrays.items() if k.startswith(prefix) and "." not in k[len(prefix) :]
    }
    return cls(**fields, **extra)

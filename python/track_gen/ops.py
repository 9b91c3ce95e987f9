"""Small device helpers of the original's later version (``track_gen.ops``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import as_input

__all__ = ["any_set"]


def any_set(mask: Any, flag: Any) -> None:
    """Writes ``flag[0] = 1`` if some ``mask[e] != 0``, else 0 (mask ``[E]``, flag ``[1]`` int32)."""
    m = as_input(mask, "track_gen.ops.any_set", "mask", "ints")
    f = as_input(flag, "track_gen.ops.any_set", "flag", "int32", 1, alias=True)
    f[0] = int(np.any(m != 0))

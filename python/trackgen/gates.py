"""Gate courses for drone racing (C++ ``trackgen::GateGenerator``): per env a
closed sequence of gates, with zero-copy arrays as for tracks."""

from __future__ import annotations

import os
from typing import Any, Mapping, Union

import numpy as np

from . import _trackgen
from ._common import JsonConfig, Producer, add_field_properties, check_env_index

__all__ = ["GateGenConfig", "GateGenerator", "GateSequence"]


class GateGenConfig(JsonConfig):
    """A validated ``trackgen::GateGenConfig`` (the fields of ``trackgen generate --mode
    gates --config``): ``GateGenConfig(num_envs=64, gate_width=0.1)``, a dict, or
    ``GateGenConfig.from_json(path)`` (``trackgen::load_gate_config``). Invalid
    fields raise ValueError with the library's message."""

    __slots__ = ()
    _native = _trackgen._GateConfig


class GateSequence:
    """One batch of gate courses, flat and NaN-padded: the fields of the C++
    ``trackgen::GateSequence``, by its own field list (``GateSequence.fields``).
    Per-gate fields (``position``, ...: ``[E*G, 3]`` points, ``orientation``
    ``[E*G, 4]`` (x, y, z, w), ``[E*G]`` scalars) hold env ``e`` in rows
    ``[e*G, (e+1)*G)``, the first ``count[e]`` real; per-env fields (``valid``,
    ``count``) are ``[E]`` int32. Arrays over the library's memory (no copy),
    refilled by every ``generate()``; ``clone()`` keeps a batch."""

    __slots__ = ("_g",)
    _native_attr = "_g"

    def __init__(self, native: "_trackgen._Gates") -> None:
        self._g = native

    num_envs = property(lambda self: self._g.num_envs, doc="Number of envs E.")
    max_gates = property(lambda self: self._g.max_gates, doc="Per-env stride G of the per-gate fields.")

    def points(self, env: int, field: str = "position") -> np.ndarray:
        """The ``count[env]`` real rows of a per-gate field of env ``env`` (a view, host backends)."""
        env = check_env_index(env, self.num_envs, "trackgen.GateSequence.points")
        n = int(self.count[env])
        return getattr(self, field)[env * self.max_gates : env * self.max_gates + n]

    def clone(self) -> "GateSequence":
        """An independent deep copy (later generate() calls do not change it)."""
        return GateSequence(self._g.clone())

    def __repr__(self) -> str:
        return f"GateSequence(num_envs={self.num_envs}, max_gates={self.max_gates})"


add_field_properties(GateSequence, _trackgen._Gates, "G", "trackgen::GateSequence")
GateSequence.fields = _trackgen._Gates.fields


class GateGenerator(Producer):
    """A ``trackgen::GateGenerator``: ``GateGenerator(config, seed=K)`` as
    :class:`TrackGenerator` (config: a GateGenConfig, a dict or a JSON path;
    seed: an int ``K`` or an ``[E]`` int32 array). ``generate()`` and
    ``generate(mask, advance)`` return the same :class:`GateSequence`."""

    _api = "trackgen.GateGenerator"
    _config_type = GateGenConfig
    _native = _trackgen._GateGenerator

    def __init__(
        self,
        config: Union[GateGenConfig, Mapping[str, Any], str, os.PathLike, None] = None,
        seed: Any = 0,
        *,
        eager: bool = False,
        **fields: Any,
    ) -> None:
        super().__init__(config, seed, eager, fields)
        self._result = GateSequence(self._g.gates())

    @property
    def gates(self) -> GateSequence:
        """The GateSequence written by generate() (the same object every call)."""
        return self._result

    def __repr__(self) -> str:
        return f"GateGenerator(num_envs={self.num_envs}, generator={self.config.generator!r})"

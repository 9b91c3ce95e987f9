"""Gate courses for drone racing (C++ ``trackgen::GateGenerator``): per env a
closed sequence of gates, with zero-copy arrays as for tracks."""

from __future__ import annotations

import os
from typing import Any, Mapping, Union

import numpy as np

from . import _trackgen
from ._common import JsonConfig, Producer

__all__ = ["GateGenConfig", "GateGenerator", "GateSequence"]


class GateGenConfig(JsonConfig):
    """A validated ``trackgen::GateGenConfig`` (the fields of ``trackgen generate --mode
    gates --config``): ``GateGenConfig(num_envs=64, gate_width=0.1)``, a dict, or
    ``GateGenConfig.from_json(path)`` (``trackgen::load_gate_config``). Invalid
    fields raise ValueError with the library's message."""

    __slots__ = ()
    _native = _trackgen._GateConfig


class GateSequence:
    """One batch of gate courses, flat and NaN-padded: per-gate fields
    (``position``, ``tangent``, ``forward``, ``left``, ``right`` ``[E*G, 3]``,
    ``orientation`` ``[E*G, 4]`` (x, y, z, w), ``half_size`` ``[E*G]``) hold env
    ``e`` in rows ``[e*G, (e+1)*G)``, the first ``count[e]`` real; ``valid`` and
    ``count`` are ``[E]`` int32. Arrays over the library's memory (no copy),
    refilled by every ``generate()``; ``clone()`` keeps a batch."""

    __slots__ = ("_g",)

    def __init__(self, native: "_trackgen._Gates") -> None:
        self._g = native

    num_envs = property(lambda self: self._g.num_envs, doc="Number of envs E.")
    max_gates = property(lambda self: self._g.max_gates, doc="Per-env stride G of the per-gate fields.")
    position = property(lambda self: self._g.position, doc="Gate centres [E*G, 3] float32.")
    tangent = property(lambda self: self._g.tangent, doc="Course tangent at each gate [E*G, 3] float32.")
    forward = property(lambda self: self._g.forward, doc="Direction of passage [E*G, 3] float32.")
    orientation = property(lambda self: self._g.orientation, doc="Gate frames [E*G, 4] (x, y, z, w) float32.")
    half_size = property(lambda self: self._g.half_size, doc="Half the opening [E*G] float32.")
    left = property(lambda self: self._g.left, doc="Left post [E*G, 3] float32.")
    right = property(lambda self: self._g.right, doc="Right post [E*G, 3] float32.")
    valid = property(lambda self: self._g.valid, doc="Validity 0/1 [E] int32.")
    count = property(lambda self: self._g.count, doc="Real gates per env [E] int32.")

    def points(self, env: int, field: str = "position") -> np.ndarray:
        """The ``count[env]`` real rows of a per-gate field of env ``env`` (a view, host backends)."""
        if not 0 <= env < self.num_envs:
            raise ValueError(f"trackgen.GateSequence.points: env must be in [0, {self.num_envs}), got {env}")
        n = int(self.count[env])
        return getattr(self, field)[env * self.max_gates : env * self.max_gates + n]

    def clone(self) -> "GateSequence":
        """An independent deep copy (later generate() calls do not change it)."""
        return GateSequence(self._g.clone())

    def __repr__(self) -> str:
        return f"GateSequence(num_envs={self.num_envs}, max_gates={self.max_gates})"


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

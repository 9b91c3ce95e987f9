"""TrackGenerator and GateGenerator with the original's constructor
``(config, rng)`` and ``generate(num=None)``, and the process-wide capture flag."""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np

from trackgen import _trackgen

from ._array import Array
from ._batches import GateSequence, Track
from ._config import GateGenConfig, TrackGenConfig, UnsupportedSetting
from ._rng import PerEnvSeededRNG

__all__ = ["TrackGenerator", "GateGenerator", "set_capturing", "is_capturing"]

_capturing = False


def set_capturing(flag: bool) -> None:
    """Sets the process-wide capture flag of the original (it suppressed host
    synchronization so that calls could be recorded into a CUDA graph). On a
    host build every call is synchronous and nothing is recorded: the flag is
    kept (``is_capturing()``) and has no other effect."""
    global _capturing
    _capturing = bool(flag)


def is_capturing() -> bool:
    """The flag set by set_capturing."""
    return _capturing


def _check_num(value: Any, num_envs: int, api: str) -> None:
    if value is None:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{api}: the argument must be None or the int num_envs = {num_envs}, got {type(value).__name__}"
        )
    if int(value) != num_envs:
        raise ValueError(f"{api}: this generator's batch is num_envs = {num_envs} envs, got {int(value)}")


class _Generator:
    _api = ""
    _config_type: Any = None
    _native: Any = None

    def __init__(self, config: Any, rng: Optional[PerEnvSeededRNG] = None) -> None:
        api = self._api
        if not isinstance(config, self._config_type):
            raise TypeError(f"{api}: config must be a {self._config_type.__name__}, got {type(config).__name__}")
        if rng is None:
            raise ValueError(f"{api}: rng is None; pass PerEnvSeededRNG(seeds, config.num_envs, config.device)")
        if not isinstance(rng, PerEnvSeededRNG):
            raise TypeError(f"{api}: rng must be a PerEnvSeededRNG, got {type(rng).__name__}")
        if rng.num_envs != config.num_envs:
            raise ValueError(f"{api}: rng has {rng.num_envs} envs, config.num_envs is {config.num_envs}")
        self.config = config
        self.rng = rng
        self.device = config.device
        self._g = self._native(config._native(), rng._seeds)

    @property
    def num_envs(self) -> int:
        """Envs E."""
        return self.config.num_envs

    def _run(self, num: Any) -> None:
        _check_num(num, self.num_envs, f"{self._api}.generate")
        self._g.set_seeds_array(self.rng._seeds)  # the rng's current base seeds
        self._g.generate()


class TrackGenerator(_Generator):
    """Generates a batch of ``config.num_envs`` tracks from the rng's base seeds.

    ``TrackGenerator(config, rng)``: ``config`` a TrackGenConfig, ``rng`` a
    PerEnvSeededRNG of as many envs (None: ValueError). An unknown
    ``config.generator`` raises ValueError listing the available ones;
    ``relax_solver`` other than "xpbd" and ``smooth_finish=True`` raise
    UnsupportedSetting (a ValueError and an AssertionError). All memory is
    allocated here (and the rng's batch generated once).

    ``generate(num_or_ids=None) -> Track``: copies the rng's current base seeds
    and runs the pipeline; returns the same Track every call (same arrays).
    ``num_or_ids`` may be None or the int ``num_envs`` (TypeError for a bool
    or a sequence, ValueError for another int). Deterministic: the same seeds
    give the bit-identical batch; reseed with ``rng.set_seeds_warp(...)``.
    """

    _api = "track_gen.TrackGenerator"
    _config_type = TrackGenConfig
    _native = _trackgen._TrackGenerator

    def __init__(self, config: TrackGenConfig, rng: Optional[PerEnvSeededRNG] = None) -> None:
        if isinstance(config, TrackGenConfig):
            if config.relax_solver != "xpbd":
                raise UnsupportedSetting(
                    f"{self._api}: relax_solver {config.relax_solver!r} is an oracle-only solver; only 'xpbd' runs"
                )
            if config.smooth_finish:
                raise UnsupportedSetting(f"{self._api}: smooth_finish=True is oracle-only; leave it False")
            names = _trackgen.generators()
            if config.generator not in names:
                raise ValueError(f"{self._api}: unknown generator {config.generator!r}; available: {', '.join(names)}")
        super().__init__(config, rng)
        self._track = Track._wrap(self._g.track_rw())

    @property
    def track(self) -> Track:
        """The Track every generate() refills."""
        return self._track

    def generate(self, num_or_ids: Any = None) -> Track:
        """Generates the batch of the rng's current seeds into the (same) Track."""
        self._run(num_or_ids)
        self._track.mark_changed()
        return self._track

    def __repr__(self) -> str:
        return f"TrackGenerator(num_envs={self.num_envs}, generator={self.config.generator!r}, device='cpu')"


class GateGenerator(_Generator):
    """Generates a batch of ``config.num_envs`` gate courses from the rng's base seeds.

    ``GateGenerator(config, rng)`` as TrackGenerator; ``generate(num=None) ->
    GateSequence`` (the same object every call). Unlike the original,
    ``generate`` checks its argument like TrackGenerator's (numpy ints
    accepted, bool refused). ``frame_fallbacks`` (``[E]`` int32) counts the
    gates of the last run whose frame fell back to a default (near-vertical
    or degenerate tangents).
    """

    _api = "track_gen.GateGenerator"
    _config_type = GateGenConfig
    _native = _trackgen._GateGenerator

    def __init__(self, config: GateGenConfig, rng: Optional[PerEnvSeededRNG] = None) -> None:
        if isinstance(config, GateGenConfig):
            names = _trackgen.gate_generators()
            if config.generator not in names:
                raise ValueError(
                    f"{self._api}: unknown gate generator {config.generator!r}; available: {', '.join(names)}"
                )
        super().__init__(config, rng)
        self._gates = GateSequence._wrap(self._g.gates())
        self._fallbacks = Array(self._g.frame_fallbacks)

    @property
    def gates(self) -> GateSequence:
        """The GateSequence every generate() refills."""
        return self._gates

    @property
    def frame_fallbacks(self) -> Array:
        """[E] int32: frame fallbacks of the last run."""
        return self._fallbacks

    def generate(self, num: Any = None) -> GateSequence:
        """Generates the batch of the rng's current seeds into the (same) GateSequence."""
        self._run(num)
        self._gates.mark_changed()
        return self._gates

    def __repr__(self) -> str:
        return f"GateGenerator(num_envs={self.num_envs}, generator={self.config.generator!r}, device='cpu')"

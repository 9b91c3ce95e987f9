"""PerEnvSeededRNG: the per-env base seeds the generators read, and the
original's sampling helpers on per-env PCG states (numpy, on the host)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ._array import Array, as_input, quatf
from ._config import check_device

__all__ = ["PerEnvSeededRNG", "pcg", "rand_init", "randf"]

_INT32_MAX = 2**31 - 1


def pcg(x: Any) -> np.ndarray:
    """The PCG-style integer hash of the library's RNG, elementwise on uint32."""
    x = np.asarray(x, dtype=np.uint32)
    with np.errstate(over="ignore"):
        b = x * np.uint32(747796405) + np.uint32(2891336453)
        c = ((b >> ((b >> np.uint32(28)) + np.uint32(4))) ^ b) * np.uint32(277803737)
    return (c >> np.uint32(22)) ^ c


def rand_init(seed: Any) -> np.ndarray:
    """The state of seed ``seed`` (int32): ``pcg(uint32(seed))``."""
    return pcg(np.asarray(seed, dtype=np.int64).astype(np.int32).view(np.uint32))


def randf(state: np.ndarray) -> tuple:
    """One uniform float in [0, 1 - 2^-24] per state: (values, advanced states)."""
    s = pcg(state)
    return (s >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24), s


class PerEnvSeededRNG:
    """Per-env base seeds (``seeds_warp``, ``[E]`` int32: the only thing the
    generators read, copied at every ``generate()``) and per-env uint32 states
    (``states_warp``) for the sampling helpers.

    ``PerEnvSeededRNG(seeds, num_envs, device="cpu")``: ``seeds`` an int ``k``
    (env ``e`` gets ``k + e``) or an ``[E]`` array: a C-contiguous int32 one is
    bound by reference (``set_seeds_warp`` writes into it, and writes of your
    own are read by the next generation), another integer one is copied. Unlike the original, an int ``k`` with
    ``k + E - 1 > 2**31 - 1`` raises ValueError instead of wrapping (the
    command-line tool's rule; docs/differences.md).
    """

    def __init__(self, seeds: Any, num_envs: int, device: str = "cpu") -> None:
        api = "track_gen.PerEnvSeededRNG"
        self.device = check_device(device, api)
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise ValueError(f"{api}: num_envs must be an int >= 1, got {num_envs!r}")
        self.num_envs = int(num_envs)
        if isinstance(seeds, numbers.Integral) and not isinstance(seeds, (bool, np.bool_)):
            k = int(seeds)
            if not -(2**31) <= k <= _INT32_MAX - (self.num_envs - 1):
                raise ValueError(
                    f"{api}: base seed {k} with num_envs = {self.num_envs} would leave int32: env seeds k + e must "
                    f"stay in [-2147483648, 2147483647], so k <= {_INT32_MAX - (self.num_envs - 1)}"
                )
            self._seeds = (k + np.arange(self.num_envs, dtype=np.int64)).astype(np.int32)
        else:
            # A C-contiguous int32 array is bound by reference; other integer arrays are copied.
            self._seeds = as_input(seeds, api, "seeds", "ints", self.num_envs)
        self._states = rand_init(self._seeds)
        self._new_states = self._states.copy()

    @property
    def seeds_warp(self) -> Array:
        """The ``[E]`` int32 base seeds (your array when you passed one)."""
        return Array(self._seeds)

    @property
    def states_warp(self) -> Array:
        """The ``[E]`` uint32 sampling states."""
        return Array(self._states)

    def set_seeds_warp(self, seeds: Any, ids: Any = None) -> None:
        """For each ``k``: ``seed[ids[k]] = seeds[k]`` and its state ``rand_init(seeds[k])``
        (``ids`` default: every env, in order)."""
        api = "track_gen.PerEnvSeededRNG.set_seeds_warp"
        s = as_input(seeds, api, "seeds", "ints")
        idx = np.arange(len(s)) if ids is None else as_input(ids, api, "ids", "ints", len(s))
        if len(s) > self.num_envs or (len(idx) and (idx.min() < 0 or idx.max() >= self.num_envs)):
            raise ValueError(f"{api}: at most {self.num_envs} seeds, at env ids in [0, {self.num_envs})")
        self._seeds[idx] = s
        self._states[idx] = rand_init(s)
        self._new_states[idx] = self._states[idx]

    # --- sampling helpers: element (i, j[, k]) draws from states[ids[i]] + linear index
    def _draw(self, shape: Any, ids: Any, body) -> Array:
        api = "track_gen.PerEnvSeededRNG.sample"
        shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(x) for x in shape)
        idx = np.arange(self.num_envs) if ids is None else as_input(ids, api, "ids", "ints").astype(np.int64)
        n = int(np.prod(shape)) if shape else 1
        base = self._states[idx].astype(np.uint32)
        with np.errstate(over="ignore"):
            states = base[:, None] + np.arange(n, dtype=np.uint32)[None, :]
        out = body(states, idx)
        tail = out.shape[2:]  # the components of a quaternion
        out = out.reshape((len(idx),) + shape + tail)
        if shape and shape[0] == 1:
            out = out.reshape((len(idx),) + shape[1:] + tail)
        with np.errstate(over="ignore"):
            self._new_states[idx] = base + np.uint32(n)
        self._states[:] = self._new_states
        return Array(out, quatf if out.shape[-1:] == (4,) and out.dtype == np.float32 and tail else out.dtype)

    @staticmethod
    def _per_env(v: Any, idx: np.ndarray) -> np.ndarray:
        a = np.asarray(v.numpy() if isinstance(v, Array) else v, dtype=np.float64)
        return a[:, None] if a.ndim == 1 else a

    def sample_uniform_warp(self, low: Any, high: Any, shape: Any = 1, ids: Any = None) -> Array:
        """Uniform floats in [low, high): ``(high - low) * randf + low`` (low/high scalars or ``[len(ids)]``)."""

        def body(states, idx):
            u, _ = randf(states)
            lo, hi = self._per_env(low, idx), self._per_env(high, idx)
            return ((hi - lo) * u + lo).astype(np.float32)

        return self._draw(shape, ids, body)

    def sample_integer_warp(self, low: Any, high: Any, shape: Any = 1, ids: Any = None) -> Array:
        """Integers in [low, high): ``pcg(state) mod (high - low) + low`` (unsigned modulo)."""

        def body(states, idx):
            s = pcg(states).astype(np.int64)
            lo = np.asarray(low, dtype=np.int64)
            hi = np.asarray(high, dtype=np.int64)
            lo, hi = (lo[:, None] if lo.ndim else lo), (hi[:, None] if hi.ndim else hi)
            return (s % (hi - lo).astype(np.uint32).astype(np.int64) + lo).astype(np.int32)

        return self._draw(shape, ids, body)

    def sample_normal_warp(self, mean: Any = 0.0, std: Any = 1.0, shape: Any = 1, ids: Any = None) -> Array:
        """Normal floats by Box-Muller: ``sqrt(-2 ln(u1 + 5.96e-8)) cos(2 pi u2)``, u1 and u2 drawn in turn."""

        def body(states, idx):
            u1, s = randf(states)
            u2, _ = randf(s)
            z = np.sqrt(-2.0 * np.log(u1 + np.float32(5.96e-8))) * np.cos(np.float32(2 * np.pi) * u2)
            return (self._per_env(std, idx) * z + self._per_env(mean, idx)).astype(np.float32)

        return self._draw(shape, ids, body)

    def sample_poisson_warp(self, lam: Any, shape: Any = 1, ids: Any = None) -> Array:
        """Poisson integers of mean ``lam`` (Knuth's product of uniforms, drawn in turn from the state)."""

        def body(states, idx):
            limit = np.exp(-self._per_env(lam, idx)) * np.ones(states.shape)
            k = np.zeros(states.shape, np.int32)
            p = np.ones(states.shape)
            s = states
            active = np.ones(states.shape, bool)
            while active.any():
                u, s = randf(s)
                p = np.where(active, p * u, p)
                active &= p > limit
                k += active
            return k

        return self._draw(shape, ids, body)

    def sample_sign_warp(self, shape: Any = 1, ids: Any = None) -> Array:
        """-1 or +1 with equal odds (+1 where randf >= 0.5)."""
        return self._draw(shape, ids, lambda states, idx: np.where(randf(states)[0] >= 0.5, 1, -1).astype(np.int32))

    def sample_quaternion_warp(self, shape: Any = 1, ids: Any = None) -> Array:
        """Rotations (x, y, z, w): axis from sample_unit_sphere(state), angle U(0, 2 pi) from state + 2654435761."""

        def body(states, idx):
            u, s = randf(states)
            v, s = randf(s)
            w, _ = randf(s)
            phi = np.arccos(1 - 2 * u)
            theta = 2 * np.pi * v
            r = np.cbrt(w)
            axis = np.stack([r * np.cos(theta) * np.sin(phi), r * np.sin(theta) * np.sin(phi), r * np.cos(phi)], -1)
            axis /= np.maximum(np.linalg.norm(axis, axis=-1, keepdims=True), 1e-12)
            with np.errstate(over="ignore"):
                a, _ = randf(states + np.uint32(2654435761))
            angle = 2 * np.pi * a
            q = np.concatenate([axis * np.sin(angle / 2)[..., None], np.cos(angle / 2)[..., None]], -1)
            return q.astype(np.float32)

        return self._draw(shape, ids, body)

    def __repr__(self) -> str:
        return f"PerEnvSeededRNG(num_envs={self.num_envs}, device={self.device!r})"

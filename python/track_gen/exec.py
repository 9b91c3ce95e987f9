"""The original's execution layer (``track_gen.exec``) where it applies to a
host build of TrackGen.

The C++ core runs every producer through its own execution layer (LaunchContext,
GraphRunner, host-recorded graphs: docs/design.md, "Execution layer"); from
Python, every call on a host build is synchronous and nothing is recorded into
a caller's graph. What this module offers:

* ``SeedState`` and ``effective_seed`` (per-env seeds plus epochs, host arrays),
  with TrackGen's ``hash32`` (the PCG hash of the RNG; the original leaves it
  undefined): ``effective_seed(7, 1) == 1572047580``;
* the exceptions and the warning (``CaptureError``, ``NotCapturableError``,
  ``LegacyPluginStreamError``, ``RebindAfterCaptureWarning``);
* ``LaunchContext`` and ``GraphRunner`` for host devices (eager: ``run``
  calls the body once; no self-graphs), ``resolve_stream`` (None on the CPU),
  ``resolve``, ``is_capturing`` (False), and the ``unconditional()`` /
  ``conditional()`` blocks (no effect without CUDA conditional nodes).
"""

from __future__ import annotations

import contextlib
import contextvars
import numbers
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ._array import Array, as_input
from ._config import check_device
from ._rng import pcg

__all__ = [
    "CaptureError",
    "GraphRunner",
    "LaunchContext",
    "LegacyPluginStreamError",
    "NotCapturableError",
    "RebindAfterCaptureWarning",
    "SeedState",
    "conditional",
    "effective_seed",
    "is_capturing",
    "resolve",
    "resolve_stream",
    "unconditional",
]


class CaptureError(RuntimeError):
    """A call was made in a capture state it does not support."""


class NotCapturableError(CaptureError):
    """A non-capturable producer was asked to record into a caller's capture."""

    def __init__(self, name: str = "", detail: str = "", *, stage_ids: tuple = ()) -> None:
        super().__init__(f"{name}: {detail}" if detail else name)
        self.name = name
        self.stage_ids = tuple(stage_ids)


class LegacyPluginStreamError(CaptureError):
    """A legacy-ABI plugin would launch on the wrong stream under capture."""

    def __init__(self, name: str = "", detail: str = "") -> None:
        super().__init__(f"{name}: {detail}" if detail else name)
        self.name = name


class RebindAfterCaptureWarning(UserWarning):
    """A bound input was replaced after a capture recorded a method reading it."""


_ambient: contextvars.ContextVar = contextvars.ContextVar("track_gen_exec_ambient", default=None)
_conditional: contextvars.ContextVar = contextvars.ContextVar("track_gen_exec_conditional", default=None)


class LaunchContext:
    """One device and one stream (None on the CPU): the original's launch
    context. On a host build work runs at once; ``capturing`` is False."""

    def __init__(self, device: Any, stream: Any = None) -> None:
        self.device = check_device(device, "track_gen.exec.LaunchContext")
        self.stream = stream

    @classmethod
    def for_call(cls, device: Any, stream: Any = None, *, default: Any = None) -> "LaunchContext":
        """The ambient context on ``device`` (an enclosing ``scope()``), else a new one."""
        amb = _ambient.get()
        if stream is None and amb is not None and amb.device == check_device(device, "track_gen.exec.for_call"):
            return amb
        return cls(device, resolve_stream(device, stream, default))

    @classmethod
    def current(cls, device: Any) -> "LaunchContext":
        """A context on ``device``'s current stream (None on the CPU)."""
        return cls(device, None)

    @property
    def capturing(self) -> bool:
        """Whether the stream is capturing: never on a host build."""
        return False

    def launch(
        self,
        kernel: Callable[..., Any],
        dim: Any,
        inputs: Any = (),
        outputs: Any = (),
        *,
        block_dim: int = 256,
        max_blocks: int = 0,
    ) -> None:
        """Calls ``kernel(dim, *inputs, *outputs)`` at once (a host launch)."""
        kernel(dim, *inputs, *outputs)

    def copy(self, dst: Any, src: Any, *, dst_offset: int = 0, src_offset: int = 0, count: int = 0) -> None:
        """Copies ``count`` entries (0: all of src) of ``src[src_offset:]`` into ``dst[dst_offset:]``."""
        s = np.asarray(src)
        d = np.asarray(dst)
        n = count or len(s) - src_offset
        d[dst_offset : dst_offset + n] = s[src_offset : src_offset + n]

    def fill(self, arr: Any, value: Any) -> None:
        """Writes ``value`` into every entry of ``arr``."""
        np.asarray(arr)[...] = value

    def skip_unless(self, flag: Any, body: Callable[["LaunchContext"], None]) -> bool:
        """Runs ``body(self)`` (it must be a no-op when ``flag[0] == 0``); False:
        not recorded under a conditional node (there are none on the CPU)."""
        f = np.asarray(flag)
        if f.shape != (1,) or f.dtype != np.int32:
            raise TypeError("track_gen.exec.LaunchContext.skip_unless: flag must be a [1] int32 array")
        body(self)
        return False

    def bounded_loop(
        self,
        n_iters: int,
        body: Callable[["LaunchContext", int], None],
        *,
        active: Any = None,
        first_check: int = 0,
        check_every: int = 1,
    ) -> None:
        """Runs ``body(self, it)`` for it < n_iters, stopping at a window whose
        check reads ``active[0] == 0`` (a host poll)."""
        if isinstance(n_iters, bool) or not isinstance(n_iters, numbers.Integral):
            raise TypeError("track_gen.exec.LaunchContext.bounded_loop: n_iters must be an int")
        if n_iters < 0 or check_every < 1:
            raise ValueError("track_gen.exec.LaunchContext.bounded_loop: n_iters >= 0 and check_every >= 1")
        a = None if active is None else np.asarray(active)
        for it in range(n_iters):
            if a is not None and it >= first_check and (it - first_check) % check_every == 0 and a[0] == 0:
                return
            body(self, it)

    def sync(self) -> None:
        """Nothing to wait for on the CPU."""

    @contextlib.contextmanager
    def scope(self) -> Iterator["LaunchContext"]:
        """Makes this the ambient context of ``for_call`` (thread- and task-local)."""
        token = _ambient.set(self)
        try:
            yield self
        finally:
            _ambient.reset(token)


class GraphRunner:
    """The original's execution policy of one producer, on a host build: every
    ``run`` calls the body eagerly (no self-graphs: ``graph`` is None)."""

    def __init__(
        self,
        device: Any,
        *,
        capturable: bool,
        legacy_stream: bool = False,
        default_stream: Any = None,
        owner: Any = None,
        name: str = "",
    ) -> None:
        self.device = check_device(device, "track_gen.exec.GraphRunner")
        self.capturable = bool(capturable)
        self.legacy_stream = bool(legacy_stream)
        self.default_stream = default_stream
        self.name = name
        self.prepared = False
        self.graph = None
        self.graph_keys: tuple = ()

    def graph_for(self, key: Any = None) -> None:
        return None

    def segment_graphs_for(self, key: Any = None) -> None:
        return None

    def context(self, stream: Any = None) -> LaunchContext:
        return LaunchContext.for_call(self.device, stream, default=self.default_stream)

    def ensure_not_capturing(self) -> LaunchContext:
        return self.context()

    @contextlib.contextmanager
    def serial(self, ctx: LaunchContext) -> Iterator[None]:
        yield

    def check_record(self, ctx: LaunchContext) -> None:
        """Nothing is ever recorded on a host build."""

    def prepare(self, enqueue: Callable[[LaunchContext], None]) -> None:
        """One real pass of ``enqueue``."""
        enqueue(self.context())
        self.prepared = True

    def run(
        self,
        enqueue: Callable[[LaunchContext], None],
        *,
        stream: Any = None,
        policy: str = "auto",
        sync: bool = False,
        key: Any = None,
    ) -> LaunchContext:
        """Runs ``enqueue(ctx)`` once, eagerly; returns the context."""
        if policy not in ("auto", "eager"):
            raise ValueError(f"track_gen.exec.GraphRunner.run: policy must be 'auto' or 'eager', got {policy!r}")
        if key is not None and not self.prepared:
            raise CaptureError(f"track_gen.exec.GraphRunner.run ({self.name}): a key needs prepare() first")
        ctx = self.context(stream)
        enqueue(ctx)
        return ctx


def resolve_stream(device: Any, stream: Any = None, default: Any = None) -> Any:
    """The stream a call runs on: None on the CPU (a host build has no streams)."""
    check_device(device, "track_gen.exec.resolve_stream")
    return stream if stream is not None else default


def resolve(ctx: Optional[LaunchContext], device: Any) -> LaunchContext:
    """``ctx`` if given, else ``LaunchContext.for_call(device)``."""
    return ctx if ctx is not None else LaunchContext.for_call(device)


def is_capturing(stream: Any) -> bool:
    """Whether ``stream`` is capturing: never on a host build."""
    return False


@contextlib.contextmanager
def unconditional(enabled: bool = True) -> Iterator[None]:
    """No CUDA conditional node in this block (there are none on a host build)."""
    token = _conditional.set(False if enabled else None)
    try:
        yield
    finally:
        _conditional.reset(token)


@contextlib.contextmanager
def conditional(enabled: bool = True) -> Iterator[None]:
    """Allow conditional nodes in your own capture (no effect on a host build)."""
    token = _conditional.set(True if enabled else None)
    try:
        yield
    finally:
        _conditional.reset(token)


def _hash32(x: np.ndarray) -> np.ndarray:
    return pcg(x)


def effective_seed(seed: int, epoch: int) -> int:
    """The seed generation uses for base seed ``seed`` at ``epoch`` (both int32):
    ``seed`` at epoch 0, else ``hash32(u32(seed) ^ hash32(u32(epoch) * 0x9E3779B9)) & 0x7FFFFFFF``."""
    s = np.array([seed], np.int64).astype(np.int32).view(np.uint32)
    e = np.array([epoch], np.int64).astype(np.int32).view(np.uint32)
    return int(_effective(s, e)[0])


def _effective(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        mixed = _hash32(s ^ _hash32(e * np.uint32(0x9E3779B9))) & np.uint32(0x7FFFFFFF)
    return np.where(e == 0, s, mixed).view(np.int32)


class SeedState:
    """Per-env base seeds plus epochs (``[E]`` int32 each, host arrays).

    ``SeedState(num_envs, device, seeds=None, *, copy=False, default_stream=None)``:
    ``seeds`` None (owned ``0 + arange(E)``), an int ``k`` (owned ``k + arange(E)``;
    ValueError past int32, as PerEnvSeededRNG), an ``[E]`` int32 array or a
    PerEnvSeededRNG (bound by reference, never written; ``copy=True`` takes an
    owned copy). ``advance``, ``reset_epoch``, ``set``, ``effective`` as the
    original's (``mask``: ``[E]`` int32)."""

    def __init__(
        self, num_envs: int, device: Any, seeds: Any = None, *, copy: bool = False, default_stream: Any = None
    ) -> None:
        api = "track_gen.exec.SeedState"
        from ._rng import PerEnvSeededRNG  # noqa: PLC0415

        self.device = check_device(device, api)
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise ValueError(f"{api}: num_envs must be an int >= 1, got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.default_stream = default_stream
        if seeds is None or (isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool)):
            self._seeds = PerEnvSeededRNG(0 if seeds is None else seeds, self.num_envs)._seeds
            self.bound = False
        elif (
            isinstance(seeds, PerEnvSeededRNG)
            or hasattr(seeds, "__array__")
            or hasattr(seeds, "__dlpack__")
            or isinstance(seeds, Array)
        ):
            arr = (
                seeds._seeds
                if isinstance(seeds, PerEnvSeededRNG)
                else as_input(seeds, api, "seeds", "int32", self.num_envs, alias=True)
            )
            if len(arr) != self.num_envs:
                raise ValueError(f"{api}: seeds must be [{self.num_envs}] int32")
            self._seeds = arr.copy() if copy else arr
            self.bound = not copy
        else:
            raise TypeError(f"{api}: seeds must be None, an int, an [E] int32 array or a PerEnvSeededRNG")
        self._epoch = np.zeros(self.num_envs, np.int32)

    @property
    def seeds(self) -> Array:
        """[E] int32 base seeds (your array when bound)."""
        return Array(self._seeds)

    @property
    def epoch(self) -> Array:
        """[E] int32 epochs."""
        return Array(self._epoch)

    def check_mask(self, mask: Any, name: str = "mask") -> None:
        """ValueError unless ``mask`` is a contiguous [E] int32 array."""
        as_input(mask, "track_gen.exec.SeedState", name, "int32", self.num_envs, alias=True)

    def _where(self, mask: Any) -> Any:
        if mask is None:
            return slice(None)
        return as_input(mask, "track_gen.exec.SeedState", "mask", "ints", self.num_envs) != 0

    def advance(self, mask: Any = None, *, stream: Any = None, ctx: Any = None) -> None:
        """``epoch += 1`` for every env or where ``mask != 0``."""
        self._epoch[self._where(mask)] += 1

    def reset_epoch(self, mask: Any = None, *, stream: Any = None, ctx: Any = None) -> None:
        """``epoch = 0`` for every env or where ``mask != 0``."""
        self._epoch[self._where(mask)] = 0

    def set(self, seeds: Any, ids: Any = None, *, stream: Any = None, ctx: Any = None) -> None:
        """Writes base seeds into an owned state and zeroes those envs' epochs
        (RuntimeError for bound seeds)."""
        api = "track_gen.exec.SeedState.set"
        if self.bound:
            raise RuntimeError(f"{api}: the seeds are bound to your array; write it, or build with copy=True")
        if ids is None:
            s = as_input(seeds, api, "seeds", "ints", self.num_envs)
            self._seeds[:] = s
            self._epoch[:] = 0
        else:
            i = as_input(ids, api, "ids", "ints")
            s = as_input(seeds, api, "seeds", "ints", len(i))
            self._seeds[i] = s
            self._epoch[i] = 0

    def effective(self, out: Any, mask: Any = None, *, stream: Any = None, ctx: Any = None) -> None:
        """Writes the effective seeds into ``out`` ([E] int32), only where ``mask != 0`` when given."""
        o = as_input(out, "track_gen.exec.SeedState.effective", "out", "int32", self.num_envs, alias=True)
        eff = _effective(self._seeds.view(np.uint32), self._epoch.view(np.uint32))
        w = self._where(mask)
        o[w] = eff[w]

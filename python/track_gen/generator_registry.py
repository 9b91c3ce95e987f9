"""The registry of centerline generators (the original's internal but
documented ``generator_registry``): names resolve to TrackGen's C++ generators.

New generators are C++ classes registered with ``trackgen::register_generator``
(docs/design.md, "Adding a generator"); a Python ``GeneratorSpec`` cannot run
inside the C++ pipeline, so ``register`` raises NotImplementedError."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from trackgen import _trackgen

__all__ = ["GeneratorSpec", "register", "get", "available"]

#: Generators whose stage reads the device on the host (not recordable); empty:
#: every built-in one is capturable in TrackGen (repulsive included).
_HOST_GENERATORS: frozenset = frozenset()


@dataclasses.dataclass(frozen=True)
class GeneratorSpec:
    """A generator by name; ``alloc_scratch`` / ``generate`` are None for
    TrackGen's C++ generators (they run inside the C++ pipeline)."""

    name: str
    alloc_scratch: Optional[Callable[..., Any]] = None
    generate: Optional[Callable[..., Any]] = None
    capturable: bool = True


def available() -> list:
    """Sorted names of the registered generators."""
    return sorted(_trackgen.generators())


def get(name: str) -> GeneratorSpec:
    """The spec of ``name``; ValueError listing the available names otherwise."""
    names = available()
    if name not in names:
        raise ValueError(f"track_gen.generator_registry.get: unknown generator {name!r}; available: {', '.join(names)}")
    return GeneratorSpec(name=name, capturable=name not in _HOST_GENERATORS)


def register(spec: GeneratorSpec) -> None:
    """Not available from Python: generators are C++ classes (register_generator)."""
    raise NotImplementedError(
        "track_gen.generator_registry.register: TrackGen's generators are C++ classes registered with "
        "trackgen::register_generator (docs/design.md, 'Adding a generator'); a Python spec cannot run in its pipeline"
    )

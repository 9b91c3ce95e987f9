"""The registry of gate generators (the original's internal but documented
``gate_generator_registry``): names resolve to TrackGen's C++ gate sources;
``register`` raises NotImplementedError (C++ ``register_gate_generator``)."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from trackgen import _trackgen

__all__ = ["GateGeneratorSpec", "register", "get", "available"]


@dataclasses.dataclass(frozen=True)
class GateGeneratorSpec:
    """A gate generator by name (``alloc_scratch`` / ``generate`` None: C++)."""

    name: str
    alloc_scratch: Optional[Callable[..., Any]] = None
    generate: Optional[Callable[..., Any]] = None
    max_gates: Optional[Callable[..., int]] = None
    supported_orderings: frozenset = frozenset()


def available() -> list:
    """Sorted names of the registered gate generators."""
    return sorted(_trackgen.gate_generators())


def get(name: str) -> GateGeneratorSpec:
    """The spec of ``name``; ValueError listing the available names otherwise."""
    names = available()
    if name not in names:
        raise ValueError(
            f"track_gen.gate_generator_registry.get: unknown gate generator {name!r}; available: {', '.join(names)}"
        )
    return GateGeneratorSpec(name=name)


def register(spec: GateGeneratorSpec) -> None:
    """Not available from Python: gate generators are C++ classes (register_gate_generator)."""
    raise NotImplementedError(
        "track_gen.gate_generator_registry.register: gate generators are C++ classes registered with "
        "trackgen::register_gate_generator (docs/design.md, 'Adding a generator')"
    )

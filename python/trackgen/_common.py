"""What the config and producer classes share: JSON-backed configs, argument
checks, and the seeds, masks and generate() protocol of a producer."""

from __future__ import annotations

import numbers
import os
from typing import Any, Mapping, Optional, Union

import numpy as np

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


class LibraryArray(np.ndarray):
    """A numpy array over the library's memory (the type of every field array).

    It differs from np.ndarray in one thing: a read-only one (a producer's)
    exported to a legacy DLPack consumer (``__dlpack__()`` without
    ``max_version``, which numpy refuses for read-only arrays since that DLPack
    version cannot flag them) is shared anyway, as ``torch.from_numpy`` shares
    a read-only array: do not write through such a tensor. Consumers of DLPack
    >= 1.0 get the read-only flag.
    """

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None):
        if max_version is None and dl_device is None and copy is None:
            target = self if self.flags.writeable else np.asarray(_WritableAlias(self))
            return np.ndarray.__dlpack__(target.view(np.ndarray), stream=stream)
        return np.ndarray.__dlpack__(
            self.view(np.ndarray), stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )


class _WritableAlias:
    """The memory of a read-only array as a writable array interface (the
    array, kept as an attribute, keeps the memory alive)."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a
        iface = dict(a.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


def add_field_properties(cls: type, native: Any, stride: str, cpp_name: str) -> None:
    """Adds to ``cls`` (whose instances keep the bound container in ``_native_attr``)
    one read-only property per field of the native class's ``fields`` list:
    the C++ container's own field list (``for_each_field``), so every field of
    the C++ struct reaches Python without a list written here. ``stride``
    names the per-point stride in the docs."""
    attr = cls._native_attr
    for name, per_point, components, dtype in native.fields:
        rows = f"E*{stride}" if per_point else "E"
        shape = f"[{rows}, {components}]" if components > 1 else f"[{rows}]"
        doc = f"``{cpp_name}::{name}``: {shape} {dtype}, an array over the library's memory (no copy)."
        # Bound per field through a default argument (a closure over the loop
        # variable would see its last value).
        setattr(
            cls, name, property(lambda self, _n=name: getattr(getattr(self, attr), _n).view(LibraryArray), doc=doc)
        )


class JsonConfig:
    """A validated C++ config struct with a JSON codec; subclasses set ``_native``
    (the bound struct: ``from_object``, ``load``, ``to_object``, ``to_json_text``)."""

    __slots__ = ("_c",)
    _native: Any = None

    def __init__(self, fields: Optional[Mapping[str, Any]] = None, /, **kwargs: Any) -> None:
        merged = dict(fields or {})
        merged.update(kwargs)
        object.__setattr__(self, "_c", self._native.from_object(merged))

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]):
        """A config from a dict of fields."""
        return cls(fields)

    @classmethod
    def from_json(cls, path: Union[str, os.PathLike]):
        """A config read from a JSON file by the library's own reader."""
        self = cls.__new__(cls)
        object.__setattr__(self, "_c", load_config_file(cls._native, path, f"trackgen.{cls.__name__}.from_json"))
        return self

    def __reduce__(self):
        # pickle, copy and deepcopy: the class and its fields
        return (type(self), (self.to_dict(),))

    def to_dict(self) -> dict:
        """Every field by its JSON name (a fresh dict)."""
        return self._c.to_object()

    def to_json(self, indent: int = 2) -> str:
        """The config as JSON text, readable by the command-line tool's ``--config``."""
        return self._c.to_json_text(indent)

    def replace(self, **kwargs: Any):
        """A copy with some fields changed."""
        return type(self)(self.to_dict(), **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # e.g. _c before __init__ set it
            raise AttributeError(name)
        d = self._c.to_object()
        if name in d:
            return d[name]
        raise AttributeError(f"{type(self).__name__} has no field '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, "_c", self._native.from_object({**self.to_dict(), name: value}))

    def __dir__(self) -> list:
        return sorted(set(super().__dir__()) | set(self.to_dict()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"


def load_config_file(native: Any, path: Any, api: str) -> Any:
    """``native.load(path)`` (the library's JSON reader), with ValueError naming
    ``api`` and the path for a folder or a file that is not UTF-8 text."""
    p = os.fspath(path)
    if os.path.isdir(p):
        raise ValueError(f"{api}: {p} is a folder, not a JSON config file")
    try:
        return native.load(p)
    except UnicodeDecodeError:
        raise ValueError(f"{api}: {p} is not a JSON config file (not UTF-8 text)") from None


def check_env_index(env: Any, num_envs: int, api: str) -> int:
    """``env`` as an int in [0, num_envs); ValueError naming ``api`` otherwise."""
    if isinstance(env, (bool, np.bool_)) or not isinstance(env, numbers.Integral):
        raise ValueError(f"{api}: env must be an int, got {env!r}")
    if not 0 <= int(env) < num_envs:
        raise ValueError(f"{api}: env must be in [0, {num_envs}), got {env}")
    return int(env)


def make_config(cls: type, config: Any, kwargs: dict):
    """``config`` (an instance of ``cls``, a dict, a JSON file path or None) with ``kwargs`` applied."""
    if isinstance(config, cls):
        return config.replace(**kwargs) if kwargs else config
    if isinstance(config, (str, os.PathLike)):
        c = cls.from_json(config)
        return c.replace(**kwargs) if kwargs else c
    return cls(config, **kwargs)


def int32_array(value: Any, api: str, name: str, n: int, allow_bool: bool = False) -> np.ndarray:
    """``value`` as a C-contiguous [n] int32 numpy array, or ValueError naming ``name``."""
    a = np.asarray(value)
    if allow_bool and a.dtype == np.bool_:
        a = a.astype(np.int32)
    if a.dtype != np.int32:
        kinds = "an int32 or bool" if allow_bool else "an int or an int32"
        raise ValueError(f"{api}: {name} must be {kinds} array of shape ({n},), got dtype {a.dtype}")
    if a.shape != (n,):
        raise ValueError(f"{api}: {name} must have shape ({n},) (one entry per env), got shape {a.shape}")
    return np.ascontiguousarray(a)


def seed_arg(seed: Any, api: str, n: int) -> Union[int, np.ndarray]:
    """A base seed as an int32-range int, or per-env seeds as an [n] int32 array."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        if not _INT32_MIN <= int(seed) <= _INT32_MAX:
            raise ValueError(f"{api}: seed must fit in int32, got {int(seed)}")
        return int(seed)
    return int32_array(seed, api, "seed", n)


class Producer:
    """A bound producer (``_native``) of a config of type ``_config_type`` whose
    result object is ``self._result``; subclasses set ``_api`` and build the result."""

    _api = ""
    _config_type: type = JsonConfig
    _native: Any = None

    def __init__(self, config: Any, seed: Any, eager: bool, fields: dict) -> None:
        self.config = make_config(self._config_type, config, fields)
        self._g = self._native(self.config._c, seed_arg(seed, self._api, self.config.num_envs))
        self._g.eager = bool(eager)

    @property
    def num_envs(self) -> int:
        """Number of envs E."""
        return self.config.num_envs

    @property
    def seeds(self) -> np.ndarray:
        """The [E] int32 base seeds the next generate() reads (the producer's memory: writes take effect)."""
        return self._g.seeds

    @property
    def epoch(self) -> np.ndarray:
        """The [E] int32 epochs (advanced by ``generate(mask, advance=True)``); read only by convention."""
        return self._g.epoch

    def rebind_seeds(self, seed: Any) -> None:
        """Sets the base seeds read by the next generate(): an int ``K`` (``K + e``)
        or an [E] int32 array (copied). Epochs are kept. ValueError naming
        ``seed`` for another shape or dtype."""
        s = seed_arg(seed, self._api, self.num_envs)
        if isinstance(s, int):
            self._g.set_seeds(s)
        else:
            self._g.set_seeds_array(s)

    def generate(self, mask: Any = None, advance: bool = False):
        """Generates the batch and returns the (same) result object.

        With ``mask`` (an [E] int32 or bool array), only envs with
        ``mask[e] != 0`` are regenerated, first advancing their epoch when
        ``advance`` is true (a new one for the same seed); every other env
        stays bit-identical.
        """
        if mask is None:
            if advance:
                raise ValueError(f"{self._api}.generate: advance needs a mask (use an all-ones mask)")
            self._g.generate()
        else:
            m = int32_array(mask, f"{self._api}.generate", "mask", self.num_envs, allow_bool=True)
            self._g.generate_masked(m, bool(advance))
        return self._result

"""TrackGenConfig and GateGenConfig as the original package's dataclasses.

The fields are the C++ configs' own (their JSON names and defaults, read from
the extension at import, so a field added in C++ appears here) plus the
original's fields that TrackGen has no counterpart for:

* ``device``: ``"cpu"`` on a host build; ``"cuda"`` / ``"cuda:N"`` raise
  ValueError naming the build;
* oracle-only and vestigial fields (``max_regen_iters``, ``relax_chunk_size``,
  ``relax_use_warp``, ``energy_*``, ``tp_*``, ``smooth_finish_iters``,
  ``smooth_finish_tau``): accepted, no effect;
* ``relax_solver`` ``"energy"`` / ``"tp_sobolev"`` and ``smooth_finish=True``:
  accepted by the config, refused by ``TrackGenerator`` (as in the original);
* the experimental Fourier generator's knobs (``num_harmonics``, ``decay_p``,
  ``amplitude``, ``num_centerline_samples``): ValueError naming the field when
  set to anything but their default.

``__post_init__`` fills ``spacing`` (``0.6 * half_width``) and validates every
field with the C++ library's rules (ValueError naming the field).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import numpy as np

from trackgen import _trackgen
from trackgen._common import load_config_file

__all__ = ["TrackGenConfig", "GateGenConfig", "UnsupportedSetting", "check_device"]


class UnsupportedSetting(ValueError, AssertionError):
    """A setting the original accepts in its config but its generator refuses
    with an assertion (``relax_solver`` other than ``"xpbd"``,
    ``smooth_finish=True``): a ValueError that is also an AssertionError."""


def check_device(device: Any, api: str) -> str:
    """``"cpu"`` for a host device string; ValueError naming the build otherwise."""
    d = str(device)
    if d == "cpu":
        return d
    if d == "cuda" or (d.startswith("cuda:") and d[5:].isdigit()):
        raise ValueError(
            f"{api}: device {d!r} needs a CUDA build of TrackGen; this build's backend is "
            f"{_trackgen.backend} (host memory): use device='cpu'"
        )
    raise ValueError(f"{api}: device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")


def _shortest(v: float) -> float:
    """The float a user wrote for a float32 C++ default (0.05f -> 0.05)."""
    return float(repr(np.float32(v)).removeprefix("np.float32(").removesuffix(")"))


def _python_value(v: Any) -> Any:
    if isinstance(v, float):
        return _shortest(v)
    if isinstance(v, list):
        return tuple(_python_value(x) for x in v)
    return v


def _native_defaults(native: Any) -> dict:
    return {k: _python_value(v) for k, v in native.from_object({}).to_object().items()}


# The original's fields without a C++ counterpart: name -> default. "inert":
# accepted and documented as having no effect; "experimental": must keep the
# default (ValueError otherwise).
_TRACK_INERT = {
    "max_regen_iters": 10,
    "relax_chunk_size": None,
    "relax_use_warp": None,
    "energy_steps": 800,
    "energy_lr": 3e-3,
    "energy_w_sep": 80.0,
    "energy_w_len": 8.0,
    "energy_w_bend": 1.0,
    "energy_w_anchor": 0.01,
    "tp_iters": 100,
    "tp_tau": 0.7,
    "tp_alpha": 2.0,
    "tp_beta": 4.5,
    "smooth_finish": False,
    "smooth_finish_iters": 8,
    "smooth_finish_tau": 0.2,
}
_TRACK_EXPERIMENTAL = {"num_harmonics": 5, "decay_p": 2, "amplitude": 1.0, "num_centerline_samples": 256}
#: relax_solver values the original's config accepts (only "xpbd" runs).
_RELAX_SOLVERS = ("xpbd", "energy", "tp_sobolev")


def _to_native_value(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def _make(cls_name: str, native: Any, api: str, extra: dict, doc: str) -> type:
    defaults = _native_defaults(native)
    native_names = tuple(defaults)
    tuple_fields = tuple(n for n, v in defaults.items() if isinstance(v, tuple))
    fields = []
    for name, default in list(defaults.items()) + list(extra.items()):
        kind = Any if default is None else type(default)
        fields.append((name, kind, dataclasses.field(default=default)))
        if name == "generator":  # the original's order: generator, device, num_envs, ...
            fields.append(("device", str, dataclasses.field(default="cpu")))

    def __post_init__(self) -> None:
        check_device(self.device, api)
        for name in tuple_fields:  # lists and arrays of a tuple field, as the tuple of their values
            v = getattr(self, name)
            if isinstance(v, (list, np.ndarray)):
                object.__setattr__(self, name, tuple(np.asarray(v).tolist()))
        for name, default in _TRACK_EXPERIMENTAL.items() if "num_harmonics" in extra else ():
            if getattr(self, name) != default:
                raise ValueError(
                    f"{api}: {name} = {getattr(self, name)!r} configures the original's experimental Fourier "
                    f"generator, which TrackGen does not implement; leave it at {default!r}"
                )
        if "relax_solver" in defaults and self.relax_solver not in _RELAX_SOLVERS:
            raise ValueError(f"{api}: relax_solver must be one of {_RELAX_SOLVERS}, got {self.relax_solver!r}")
        if "spacing" in defaults and self.spacing is None:
            object.__setattr__(self, "spacing", 0.6 * float(self.half_width))
        self._native()  # validates with the library's rules

    def _native_fields(self) -> dict:
        d = {n: _to_native_value(getattr(self, n)) for n in native_names}
        if "relax_solver" in d and d["relax_solver"] in _RELAX_SOLVERS:
            d["relax_solver"] = "xpbd"  # the others are refused by TrackGenerator
        return d

    def _native(self) -> Any:
        return native.from_object(self._native_fields())

    def to_dict(self) -> dict:
        """Every field by name (a fresh dict)."""
        return dataclasses.asdict(self)

    def to_json(self, indent: int = 2) -> str:
        """The fields TrackGen reads, as the command-line tool's ``--config`` JSON."""
        return self._native().to_json_text(indent)

    @classmethod
    def from_json(cls, path: Any):
        """A config read from a JSON file (the ``--config`` format) by the library's reader."""
        fields = load_config_file(native, path, f"{api}.from_json").to_object()
        return cls(**{k: _python_value(v) for k, v in fields.items()})

    ns = {
        "__post_init__": __post_init__,
        "_native_fields": _native_fields,
        "_native": _native,
        "to_dict": to_dict,
        "to_json": to_json,
        "from_json": from_json,
        "__doc__": doc,
        "__module__": "track_gen",
    }
    cls = dataclasses.make_dataclass(cls_name, fields, namespace=ns)
    cls._native_names = native_names
    return cls


TrackGenConfig = _make(
    "TrackGenConfig",
    _trackgen._Config,
    "track_gen.TrackGenConfig",
    {**_TRACK_INERT, **_TRACK_EXPERIMENTAL},
    """Every setting of a TrackGenerator (a mutable dataclass; the original's fields and defaults).

    ``TrackGenConfig(num_envs=64, generator="polar", device="cpu")``;
    ``dataclasses.replace(cfg, ...)`` validates again. ``spacing`` None becomes
    ``0.6 * half_width``. Invalid values raise ValueError naming the field (the
    C++ library's rules, which also bound sizes and iteration counts; see
    docs/differences.md).

    Differences from the original: ``validity_border_check`` defaults to True
    (a track flagged valid has simple, unfolded borders; False gives the
    original's validity); ``device`` is "cpu" on a host build; the oracle-only
    fields (``max_regen_iters``, ``relax_chunk_size``, ``relax_use_warp``,
    ``energy_*``, ``tp_*``, ``smooth_finish_iters``, ``smooth_finish_tau``) are
    accepted and have no effect; ``relax_solver`` "energy" / "tp_sobolev" and
    ``smooth_finish=True`` are refused by TrackGenerator (ValueError, also an
    AssertionError); the experimental Fourier fields (``num_harmonics``,
    ``decay_p``, ``amplitude``, ``num_centerline_samples``) must keep their
    defaults.
    """,
)

GateGenConfig = _make(
    "GateGenConfig",
    _trackgen._GateConfig,
    "track_gen.GateGenConfig",
    {},
    """Every setting of a GateGenerator (a mutable dataclass; the original's fields and defaults).

    ``GateGenConfig(num_envs=64, gate_width=0.1)``. ``gate_width`` is the FULL
    opening width (``half_size = gate_width / 2``). Invalid values raise
    ValueError naming the field; unlike the original, ``min_point_distance``
    must lie in (0, 0.5] as for tracks, and ``min_gates`` may not exceed the
    fewest anchors the generator writes (docs/differences.md).
    """,
)

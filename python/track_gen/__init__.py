"""track_gen: the original TrackGen package's Python API over TrackGen's C++/Kokkos core.

Code written for the original package (``import track_gen``) runs unchanged on
a host build: ``TrackGenerator(TrackGenConfig(num_envs=E), PerEnvSeededRNG(0,
E, "cpu")).generate()`` returns a Track whose fields are Arrays over the
library's memory (``numpy()``, ``__dlpack__``, ...), and the runtime utilities
live in the same submodules as the original's (collision, props, checkpoints,
progress, localize, course, heightfield). Where TrackGen deliberately differs
(defaults such as ``validity_border_check=True``, seeds that would wrap past
int32, capacities of the samplers), the docstrings say so; the repository's
docs/differences.md lists every difference. ``device`` is "cpu" on a host
build. The same distribution installs ``trackgen``, TrackGen's own API.
"""

from __future__ import annotations

from . import (
    exec,
    ops,
    checkpoints,
    collision,
    collision_frames,
    course,
    course_line,
    gate_generator_registry,
    generator_registry,
    heightfield,
    localize,
    progress,
    props,
)
from ._array import Array
from ._batches import GateSequence, Track
from ._config import GateGenConfig, TrackGenConfig, UnsupportedSetting
from ._generators import GateGenerator, TrackGenerator, is_capturing, set_capturing
from ._rng import PerEnvSeededRNG

__version__ = "0.1.0"

__all__ = [
    "Array",
    "GateGenConfig",
    "GateGenerator",
    "GateSequence",
    "PerEnvSeededRNG",
    "Track",
    "TrackGenConfig",
    "TrackGenerator",
    "UnsupportedSetting",
    "checkpoints",
    "collision",
    "course",
    "heightfield",
    "is_capturing",
    "localize",
    "progress",
    "props",
    "set_capturing",
]

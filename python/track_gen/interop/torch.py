"""PyTorch interop (``track_gen.interop.torch``); importing it does not import torch.

``retain(graph, *owners)`` keeps owners alive as long as a torch graph.
``registered()`` registers a running ``torch.cuda.graph`` capture; on a host
build of TrackGen nothing can be recorded into a CUDA graph, so it raises
CaptureError (the original raises it too when the stream is not capturing).
CPU tensors share the library's memory through DLPack
(``torch.from_dlpack(track.center)``) and are accepted as inputs.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..exec import CaptureError

__all__ = ["registered", "retain"]


@contextlib.contextmanager
def registered(
    stream: Any = None, *, graph: Any = None, capture_mode: Any = None, conditional: bool = False
) -> Iterator[Any]:
    """Registers torch's running CUDA graph capture with the library: not
    possible on a host build (CaptureError)."""
    raise CaptureError(
        "track_gen.interop.torch.registered: this build of TrackGen has no CUDA backend, so no torch.cuda.graph "
        "capture can record its work"
    )
    yield  # pragma: no cover


def retain(torch_graph: Any, *owners: Any) -> None:
    """Keeps ``owners`` alive as long as ``torch_graph`` (stored in its
    ``_track_gen_owners``; idempotent per object; None owners ignored).
    TypeError when the graph cannot carry attributes."""
    if not hasattr(torch_graph, "__dict__"):
        raise TypeError(f"track_gen.interop.torch.retain: {type(torch_graph).__name__} cannot carry attributes")
    kept = torch_graph.__dict__.setdefault("_track_gen_owners", [])
    for o in owners:
        if o is not None and not any(o is k for k in kept):
            kept.append(o)

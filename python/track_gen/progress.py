"""Lap progress of one agent per env through a CheckpointSet (ProgressTracker,
ProgressEvents)."""

from __future__ import annotations

from typing import Any

from trackgen import _trackgen

from ._array import Array, as_input
from ._results import Result, results_from
from .checkpoints import CheckpointSet

__all__ = ["ProgressTracker", "ProgressEvents"]


class ProgressEvents(Result):
    """The events of one update, ``[E]`` each: ``passed``, ``checkpoint_passed``
    (-1 none), ``next_checkpoint``, ``laps``, ``progress``, ``wrong_way``,
    ``wrong_checkpoint`` (-1 none) int32, ``dist_to_next`` float32. A reward:
    ``dist[t-1] - dist[t] + bonus * passed`` (mask the difference after a reset)."""


class ProgressTracker:
    """Tracks every env's agent through ``checkpoints`` (aliased).

    ``ProgressTracker(checkpoints, position=None)``; ``bind(position)`` binds
    the ``[E]`` vec3f positions read in place by every ``update()``, or pass
    them: ``update(position)``. Per env: the motion from the previous position
    is tested against the next checkpoint (a forward pass advances it and
    counts progress, a lap after the last one; a backward pass is
    ``wrong_way``); the first other checkpoint passed is ``wrong_checkpoint``;
    a NaN position pauses the env. ``reset(mask)`` (``[E]`` int32 or bool;
    None: all) restarts envs. ``next_checkpoint_state`` is the live ``[E]``
    target (read-only use). Returns the same ProgressEvents every call.
    """

    _api = "track_gen.progress.ProgressTracker"

    def __init__(self, checkpoints: CheckpointSet, position: Any = None) -> None:
        if not isinstance(checkpoints, CheckpointSet):
            raise ValueError(f"{self._api}: checkpoints must be a CheckpointSet, got {type(checkpoints).__name__}")
        self.checkpoints = checkpoints
        self.num_envs = checkpoints.num_envs
        self._c = _trackgen._ProgressTracker(checkpoints._c)
        arrays = self._c.arrays()
        self.events = results_from(
            ProgressEvents, {k: v for k, v in arrays.items() if "_state" not in k and "previous" not in k}
        )
        self._next = Array(arrays["next_checkpoint_state"])
        if position is not None:
            self.bind(position)

    @property
    def next_checkpoint_state(self) -> Array:
        """[E] int32: the checkpoint each env must pass next (the live state)."""
        return self._next

    def bind(self, position: Any) -> None:
        """Bound mode: every update() reads these ``[E]`` vec3f positions in place."""
        p = as_input(position, f"{self._api}.bind", "position", "vec3f", self.num_envs, alias=True)
        self._c.bind(p)
        self._bound = (position, p)

    def update(self, position: Any = None) -> ProgressEvents:
        """Advances every env from its previous position to ``position`` (bound ones without it)."""
        if position is None:
            self._c.update()
        else:
            self._c.update_arrays(as_input(position, f"{self._api}.update", "position", "vec3f", self.num_envs))
        return self.events

    def reset(self, mask: Any = None) -> None:
        """Restarts the envs with ``mask[e] != 0`` (every env for None)."""
        self._c.reset(_mask(mask, f"{self._api}.reset", self.num_envs))


def _mask(mask: Any, api: str, n: int):
    """An ``[n]`` int32 mask from any integer or bool array (None stays None)."""
    return None if mask is None else as_input(mask, api, "mask", "ints", n)

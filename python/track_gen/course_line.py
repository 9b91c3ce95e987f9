"""The centre line of a gate course (CourseLine): a Track-shaped polyline
through the gate centres that a TrackLocalizer can follow."""

from __future__ import annotations

import numbers

from trackgen import _trackgen

from ._batches import GateSequence, Track

__all__ = ["CourseLine"]


class CourseLine:
    """``CourseLine(seq, samples_per_gate=8)``: env e's line has ``n *
    samples_per_gate`` points on uniform Catmull-Rom segments through the gate
    centres (point ``i * spg`` is gate i's centre), with tangents, 3D arc
    length and length; ``outer``, ``inner``, ``normal`` NaN, ``winding`` 0.
    Envs with fewer than 3 gates or an invalid course: count 0, valid 0.
    ``track`` (also ``line``) is the Track, refreshed at construction and by
    ``refresh()`` (after a regeneration)."""

    _api = "track_gen.course_line.CourseLine"

    def __init__(self, seq: GateSequence, samples_per_gate: int = 8) -> None:
        if not isinstance(seq, GateSequence):
            raise ValueError(f"{self._api}: seq must be a track_gen.GateSequence, got {type(seq).__name__}")
        if (
            isinstance(samples_per_gate, bool)
            or not isinstance(samples_per_gate, numbers.Integral)
            or samples_per_gate < 2
        ):
            raise ValueError(f"{self._api}: samples_per_gate must be an int >= 2, got {samples_per_gate!r}")
        self.seq = seq
        self.samples_per_gate = int(samples_per_gate)
        self._c = _trackgen._CourseLine(seq._n, int(samples_per_gate))
        self.track = Track._wrap(self._c.line())
        self.line = self.track

    def refresh(self) -> Track:
        """Recomputes every env's line from the gates; returns ``track``."""
        self._c.refresh()
        return self.track

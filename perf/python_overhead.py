#!/usr/bin/env python3
"""Python overhead of the bound per-step calls: track_gen's query() / update()
and Course.step() against the same C++ call timed in a C++ loop in the same
process (the extension's _seconds_per_* hooks: the call plus a fence, without
the GIL, under the device lock), on the same batch and inputs.

    OMP_PROC_BIND=false python perf/python_overhead.py [--envs 64] [--calls 20000] [--repeats 5]

Prints, per call, the median over the repeats of the Python time, the C++ time
and their difference (the overhead: the Python wrapper, nanobind's dispatch,
releasing and taking back the GIL, the device lock), in microseconds. The
goal (issue 49) is an overhead of at most 5 us per call.
"""

import argparse
import statistics
import time

import numpy as np

import track_gen
from track_gen.checkpoints import CheckpointSampler
from track_gen.collision import CollisionChecker
from track_gen.course import Course, CourseConfig
from track_gen.localize import TrackLocalizer
from track_gen.progress import ProgressTracker


def python_seconds(call, n):
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    return (time.perf_counter() - t0) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    e, n = args.envs, args.calls

    cfg = track_gen.TrackGenConfig(num_envs=e)
    track = track_gen.TrackGenerator(cfg, track_gen.PerEnvSeededRNG(0, e)).generate()
    pos = np.stack([track.points(i)[0] for i in range(e)]).astype(np.float32)
    rot = np.tile(np.float32([0, 0, 0, 1]), (e, 1))
    he = np.full((e, 2), 0.02, np.float32)

    cc = CollisionChecker(track, 1, position=pos, orientation=rot, half_extents=he)
    tracker = ProgressTracker(CheckpointSampler(track, 0.3).checkpoints, position=pos)
    localizer = TrackLocalizer(track, warm_window=4, position=pos)
    course = Course(CourseConfig(mode="track", gen=cfg, checkpoint_spacing=0.3, collision="segments"))
    course.generate()
    course.bind(pos, rot, he)

    cases = [
        ("CollisionChecker.query()", cc.query, cc._c._seconds_per_query),
        ("ProgressTracker.update()", tracker.update, tracker._c._seconds_per_update),
        ("TrackLocalizer.query()", localizer.query, localizer._c._seconds_per_query),
        ("Course.step()", course.step, course._c._seconds_per_step),
    ]
    print(f"backend {track_gen._generators._trackgen.backend}, E = {e}, {n} calls x {args.repeats} repeats (medians)")
    print(f"{'call':28s} {'python us':>10s} {'c++ us':>10s} {'overhead us':>12s}")
    for name, py_call, cpp_seconds in cases:
        py_call()  # warm up (the Course records its step graph on first use)
        py, cpp = [], []
        for _ in range(args.repeats):  # alternate, so both see the same machine load
            py.append(python_seconds(py_call, n))
            cpp.append(cpp_seconds(n))
        p, c = statistics.median(py) * 1e6, statistics.median(cpp) * 1e6
        print(f"{name:28s} {p:10.2f} {c:10.2f} {p - c:12.2f}")


if __name__ == "__main__":
    main()

"""A regeneration loop as an RL environment runs it: episodes end at random,
finished envs get a new track (masked regeneration at a new epoch), every other
env keeps its track bit for bit, and the arrays never move.

    python python/examples/regeneration_loop.py [--envs 4096] [--steps 200] [--threads N]
"""

import argparse
import time

import numpy as np

import trackgen


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=4096)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--episode", type=float, default=100.0, help="mean episode length in steps")
    p.add_argument("--threads", type=int, default=None)
    a = p.parse_args()

    trackgen.initialize(a.threads)
    gen = trackgen.TrackGenerator(num_envs=a.envs, seed=0)
    track = gen.track
    center = track.center  # the library's memory: refilled in place below
    rng = np.random.default_rng(0)

    t0 = time.perf_counter()
    gen.generate()
    full = time.perf_counter() - t0

    regenerated, seconds = 0, 0.0
    for _ in range(a.steps):
        done = rng.random(a.envs) < 1.0 / a.episode  # stands in for collision | lap | timeout
        before = track.clone() if regenerated == 0 and done.any() else None
        t0 = time.perf_counter()
        gen.generate(done, advance=True)
        seconds += time.perf_counter() - t0
        regenerated += int(done.sum())
        if before is not None:  # check once: only the finished envs changed
            n = track.n_max
            for e in range(a.envs):
                same = np.array_equal(center[e * n : (e + 1) * n], before.center[e * n : (e + 1) * n], equal_nan=True)
                assert same == (not done[e]), e
    assert center.ctypes.data == track._data_ptr("center")
    print(f"backend {trackgen.backend}, {trackgen.concurrency()} threads, E={a.envs}, {a.steps} steps")
    print(f"full generate():      {full * 1e3:8.2f} ms")
    print(f"masked regeneration:  {seconds / a.steps * 1e3:8.2f} ms per step, {regenerated} envs regenerated")
    print(f"valid now:            {int(track.valid.sum())}/{a.envs}, max epoch {int(gen.epoch.max())}")


if __name__ == "__main__":
    main()

"""A simulation loop written against the original package's API (``import
track_gen``), as code for it is written: generate a batch, build the runtime
utilities on it, drive one car per env along its track for 1,000 steps and
compute rewards; every 250 steps a new batch of tracks (new seeds), with the
refreshes the original documents.

    OMP_PROC_BIND=false python python/examples/original_style_loop.py [--envs 256]

The car follows its track's centerline at the speed profile's speed (scaled
down) with a sideways weave; a quarter of the cars weave wider than the road
and leave it now and then.
"""

import argparse
import time

import numpy as np

import track_gen
from track_gen.checkpoints import CheckpointSampler
from track_gen.collision import CollisionChecker
from track_gen.localize import TrackLocalizer, speed_profile
from track_gen.progress import ProgressTracker


def centerline_point(track, s):
    """Per env: the centerline point at arc length s (wrapped), and the unit right vector of travel there."""
    e, n = track.num_envs, track.N_max
    count = track.count.numpy()
    length = track.length.numpy()
    arclen = np.nan_to_num(track.arclen.numpy().reshape(e, n), nan=np.inf)
    center = track.center.numpy().reshape(e, n, 3)
    s = np.mod(s, length)
    i = np.clip((arclen <= s[:, None]).sum(1) - 1, 0, count - 1)
    j = np.where(i + 1 < count, i + 1, 0)
    rows = np.arange(e)
    a, b = center[rows, i], center[rows, j]
    seg_end = np.where(i + 1 < count, arclen[rows, j], length)
    u = np.clip((s - arclen[rows, i]) / np.maximum(seg_end - arclen[rows, i], 1e-9), 0, 1)
    p = a + u[:, None] * (b - a)
    t = (b - a)[:, :2] / np.maximum(np.linalg.norm((b - a)[:, :2], axis=1, keepdims=True), 1e-9)
    right = np.stack([t[:, 1], -t[:, 0], np.zeros(e)], 1)
    return p, right, i


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--episode", type=int, default=250)
    args = ap.parse_args()
    E = args.envs

    cfg = track_gen.TrackGenConfig(num_envs=E, generator="bezier", device="cpu")
    rng = track_gen.PerEnvSeededRNG(seeds=0, num_envs=E, device=cfg.device)
    gen = track_gen.TrackGenerator(cfg, rng)
    track = gen.generate()

    # The agents' state: your own arrays, bound once and read in place.
    position = np.zeros((E, 3), np.float32)
    orientation = np.tile(np.float32([0, 0, 0, 1]), (E, 1))
    half_extents = np.tile(np.float32([0.02, 0.01]), (E, 1))

    collision = CollisionChecker(track, max_boxes=1, method="segments")
    collision.bind_inputs(position, orientation, half_extents)
    sampler = CheckpointSampler(track, spacing=0.3)
    progress = ProgressTracker(sampler.sample(), position=position)
    localizer = TrackLocalizer(track, warm_window=8, position=position)

    dt, bonus = 0.05, 1.0
    weave = np.where(np.arange(E) % 4 == 0, 0.13, 0.05)  # every 4th car leaves the road now and then
    phase = np.arange(E) * 0.7

    def new_episode(first_seed):
        nonlocal v_max, s_car, prev_dist
        if first_seed is not None:
            rng.set_seeds_warp(np.arange(first_seed, first_seed + E, dtype=np.int32))
            gen.generate()
            sampler.sample()
            progress.reset()
            localizer.reset()
        v_max = speed_profile(track, a_lat_max=2.0, a_accel=1.0, a_brake=2.0, v_cap=1.5).numpy().reshape(E, -1)
        s_car = np.zeros(E)
        p, _, _ = centerline_point(track, s_car)
        position[:] = p
        prev_dist = progress.update().dist_to_next.numpy().copy()

    v_max = s_car = prev_dist = None
    new_episode(None)
    valid = track.valid.numpy().astype(bool)
    totals = dict(reward=0.0, passed=0, laps=0, oob_steps=0, wrong_way=0)
    library_seconds = 0.0
    episode = 0
    t_start = time.perf_counter()
    for step in range(args.steps):
        if step and step % args.episode == 0:
            episode += 1
            ev = progress.events
            print(
                f"episode {episode}: valid {valid.sum()}/{E}, laps {ev.laps.numpy()[valid].sum()}, "
                f"checkpoints passed {ev.progress.numpy()[valid].sum()}"
            )
            new_episode(1000 * episode)
            valid = track.valid.numpy().astype(bool)

        # Move every car along its centerline, weaving sideways.
        _, _, i = centerline_point(track, s_car)
        v = 0.5 * v_max[np.arange(E), i]
        s_car += np.nan_to_num(v) * dt
        p, right, _ = centerline_point(track, s_car)
        position[:] = p + (weave * np.sin(0.1 * step + phase))[:, None] * right

        t0 = time.perf_counter()
        ev = progress.update()
        contacts = collision.query()
        frame = localizer.query()
        library_seconds += time.perf_counter() - t0

        dist = ev.dist_to_next.numpy()
        passed = ev.passed.numpy()
        reward = np.where(passed == 1, 0.0, prev_dist - dist) + bonus * passed - 0.1 * contacts.oob.numpy()
        prev_dist = dist.copy()
        totals["reward"] += float(np.nansum(reward[valid]))
        totals["passed"] += int(passed[valid].sum())
        totals["oob_steps"] += int(contacts.oob.numpy()[valid].sum())
        totals["wrong_way"] += int(ev.wrong_way.numpy()[valid].sum())
        if step == args.steps - 1:
            totals["laps"] = int(ev.laps.numpy()[valid].sum())
            lateral = np.abs(frame.n.numpy()[valid])
            print(
                f"last step: mean |n| {lateral.mean():.4f} (weave 0.05 / 0.13), mean clearance "
                f"{np.nanmean(contacts.distance.numpy()[valid]):.4f}, segment of env 0: {frame.segment.numpy()[0]}"
            )

    wall = time.perf_counter() - t_start
    print(
        f"{args.steps} steps x {E} envs: checkpoints passed {totals['passed']}, laps in the last episode "
        f"{totals['laps']}, out-of-bounds car-steps {totals['oob_steps']}, wrong-way passes {totals['wrong_way']}, "
        f"total reward {totals['reward']:.1f}"
    )
    print(
        f"wall {wall:.2f} s; library calls (update + query + query) {1e6 * library_seconds / args.steps:.1f} us per step"
    )


if __name__ == "__main__":
    main()

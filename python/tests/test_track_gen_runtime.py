"""track_gen's runtime utilities on hand-made tracks: a Track built from arrays
(circles of radius 1, half width 0.1, whose answers are computed by hand) and
the generators' gate courses."""

import math

import numpy as np
import pytest

import track_gen
from track_gen.checkpoints import CheckpointSampler, CheckpointSet
from track_gen.collision import CollisionChecker, DiscChecker
from track_gen.collision_frames import FrameChecker
from track_gen.course_line import CourseLine
from track_gen.heightfield import HeightFieldBaker
from track_gen.localize import TrackLocalizer, curvature, speed_profile
from track_gen.progress import ProgressTracker
from track_gen.props import PropSampler

N, N_MAX, E, HW = 200, 256, 2, 0.1
CHORD = 2 * math.sin(math.pi / N)  # centerline segment length of the unit circle's N-gon


def circle_arrays(z=0.0):
    """E counter-clockwise unit circles of N points (stride N_MAX, NaN padding)."""
    f = E * N_MAX
    arrays = {k: np.full((f, 3), np.nan, np.float32) for k in ("outer", "center", "inner", "tangent", "normal")}
    arrays["arclen"] = np.full(f, np.nan, np.float32)
    th = 2 * np.pi * np.arange(N) / N
    for e in range(E):
        s = slice(e * N_MAX, e * N_MAX + N)
        ring = np.stack([np.cos(th), np.sin(th), np.full(N, z)], 1)
        arrays["center"][s] = ring
        arrays["outer"][s] = ring * [1 + HW, 1 + HW, 1]
        arrays["inner"][s] = ring * [1 - HW, 1 - HW, 1]
        arrays["tangent"][s] = np.stack([-np.sin(th), np.cos(th), 0 * th], 1)
        arrays["normal"][s] = np.stack([-np.cos(th), -np.sin(th), 0 * th], 1)
        arrays["arclen"][s] = np.arange(N) * CHORD
    arrays["length"] = np.full(E, N * CHORD, np.float32)
    arrays["valid"] = np.ones(E, np.int32)
    arrays["count"] = np.full(E, N, np.int32)
    arrays["winding"] = np.ones(E, np.float32)
    return arrays


@pytest.fixture()
def circle():
    a = circle_arrays()
    return track_gen.Track(**a), a


def at(angle, radius=1.0, z=0.0):
    return [radius * math.cos(angle), radius * math.sin(angle), z]


def test_track_from_arrays_is_zero_copy_and_checked(circle):
    t, a = circle
    assert t.num_envs == E and t.N_max == N_MAX
    assert t.center.ptr == a["center"].__array_interface__["data"][0]
    a["center"][0, 0] = 1.0  # your writes are the Track's
    assert t.center.numpy()[0, 0] == 1.0
    assert t.truncated.numpy().tolist() == [0, 0]  # fields left out start empty
    positional = track_gen.Track(*[a[k] for k in track_gen.Track.fields[:10]])
    assert np.array_equal(positional.center.numpy(), a["center"], equal_nan=True)
    bad = dict(a, center=a["center"][:, :2])
    with pytest.raises(ValueError, match="center"):
        track_gen.Track(**bad)
    with pytest.raises(ValueError, match="count.*int32"):
        track_gen.Track(**dict(a, count=a["count"].astype(np.int64)))
    copy = t.clone()
    assert copy.center.ptr != t.center.ptr


def box_inputs(positions, half=0.01):
    n = len(positions)
    return (
        np.asarray(positions, np.float32),
        np.tile(np.float32([0, 0, 0, 1]), (n, 1)),
        np.full((n, 2), half, np.float32),
    )


def test_collision_segments_by_hand(circle):
    t, _ = circle
    pos, rot, he = box_inputs([at(0.0), at(0.0, 1.2)])
    cc = CollisionChecker(t, 1, position=pos, orientation=rot, half_extents=he)
    r = cc.query()
    assert r is cc.contacts and r.oob.numpy().tolist() == [0, 1]
    # Env 0: box corner (1.01, 0.01) is 1.1 - |(1.01, 0.01)| from the outer border, the nearest.
    assert r.distance.numpy()[0] == pytest.approx(1.1 - math.hypot(1.01, 0.01), abs=3e-4)
    assert r.boundary.numpy()[0] == 1
    assert np.allclose(r.normal.numpy()[0], [-1, 0], atol=2e-2)  # into the band (segment 0 faces angle pi / N)
    assert np.allclose(r.nearest.numpy()[0], [1.1, 0.01], atol=2e-3)
    # Env 1: the deepest corner (1.21, +-0.01) is 0.11 outside the outer border.
    assert r.distance.numpy()[1] == pytest.approx(-(math.hypot(1.21, 0.01) - 1.1), abs=3e-4)
    pos[0] = np.nan  # an inactive slot, read in place
    cc.query()
    assert r.oob.numpy()[0] == 0 and r.boundary.numpy()[0] == -1 and math.isnan(r.distance.numpy()[0])
    with pytest.raises(ValueError, match="bound"):
        cc.query(pos, rot, he)  # per-call arrays in bound mode
    per_call = CollisionChecker(t, 1)
    per_call.query(pos, rot, he)
    assert per_call.contacts.oob.numpy().tolist() == [0, 1]
    with pytest.raises(ValueError, match="half_extents"):
        per_call.query(pos, rot, he[:1])
    with pytest.raises(ValueError, match="bake"):
        cc.bake()
    with pytest.raises(ValueError, match="max_boxes"):
        CollisionChecker(t, 0)


def test_collision_segments_sees_every_change_of_the_track(circle):
    """The original's contract: a segments checker needs no refresh after a
    regeneration. Its border grids are rebuilt at the first query after the
    track changed (generate(), the Arrays' writes, mark_changed())."""
    cfg = track_gen.TrackGenConfig(num_envs=16, generator="bezier", device="cpu")
    rng = track_gen.PerEnvSeededRNG(seeds=0, num_envs=16, device="cpu")
    gen = track_gen.TrackGenerator(cfg, rng)
    track = gen.generate()

    def on_the_centerlines():
        return track.center.numpy().reshape(16, -1, 3)[:, 0].copy()

    pos, rot, he = box_inputs(on_the_centerlines())
    cc = CollisionChecker(track, 1, position=pos, orientation=rot, half_extents=he)
    assert cc.query().oob.numpy().tolist() == [0] * 16
    for first in (1000, 2000):
        rng.set_seeds_warp(np.arange(first, first + 16, dtype=np.int32))
        gen.generate()
        pos[:] = on_the_centerlines()
        got = cc.query()
        fresh = CollisionChecker(track, 1).query(pos, rot, he)
        assert got.oob.numpy().tolist() == [0] * 16
        for field in ("oob", "distance", "nearest", "normal", "boundary"):
            assert np.array_equal(getattr(got, field).numpy(), getattr(fresh, field).numpy()), field

    # A track built from arrays: writes through its Arrays, and mark_changed()
    # after writing the caller's own arrays.
    t, a = circle
    pos, rot, he = box_inputs([at(0.0, 1.15), at(0.0, 1.15)])
    cc = CollisionChecker(t, 1, position=pos, orientation=rot, half_extents=he)
    assert cc.query().oob.numpy().tolist() == [1, 1]  # outside the outer border (radius 1.1)
    wide = a["outer"][:N] * np.float32([1.2 / 1.1, 1.2 / 1.1, 1])
    t.outer[:N] = wide  # env 0's outer border at radius 1.2
    assert cc.query().oob.numpy().tolist() == [0, 1]
    a["outer"][N_MAX : N_MAX + N] = wide  # env 1's, into the caller's array
    t.mark_changed()
    assert cc.query().oob.numpy().tolist() == [0, 0]


def test_collision_sdf_agrees_with_segments(circle):
    t, _ = circle
    pos, rot, he = box_inputs([at(0.7), at(2.0, 1.3)])
    sdf = CollisionChecker(t, 1, method="sdf", sdf_resolution=256)
    r = sdf.query(pos, rot, he)
    assert r.oob.numpy().tolist() == [0, 1]
    assert r.distance.numpy()[0] == pytest.approx(1.1 - math.hypot(1.01, 0.01), abs=0.01)
    assert sdf.sdf.phi.shape == (E * 256 * 256,) and sdf.sdf.lo.numpy()[0] == pytest.approx([-1.32, -1.32], abs=1e-3)
    sdf.bake()


def test_disc_checker_by_hand():
    discs = np.float32([[0, 0, 0], [5, 5, 0], [0, 0, 0], [0.2, 0, 0]])  # E=2, D=2
    pos, rot, he = box_inputs([[0.2, 0, 0], [3, 3, 0]], half=0.1)
    dc = DiscChecker(discs, 0.5, 1, num_envs=2)
    r = dc.query(pos, rot, he)
    # Env 0: disc 0's centre is 0.1 from the box [0.1, 0.3] x [-0.1, 0.1]: depth 0.4, rim point (0.5, 0).
    assert r.hit.numpy().tolist() == [1, 0] and r.disc.numpy().tolist() == [0, -1]
    assert r.depth.numpy()[0] == pytest.approx(0.4, abs=1e-6)
    assert np.allclose(r.nearest.numpy()[0], [0.5, 0], atol=1e-6) and np.isnan(r.nearest.numpy()[1]).all()
    counted = DiscChecker(discs, 0.5, 1, count=np.int32([0, 2]))
    assert counted.query(pos, rot, he).hit.numpy().tolist() == [0, 0]  # env 0 uses no disc
    with pytest.raises(ValueError, match="radius"):
        DiscChecker(discs, 0.0, 1, num_envs=2)
    with pytest.raises(ValueError, match="num_envs"):
        DiscChecker(discs, 0.5, 1)


def test_checkpoints_progress_laps_and_wrong_way(circle):
    t, _ = circle
    sampler = CheckpointSampler(t, 0.5)
    cps = sampler.checkpoints
    n = round(N * CHORD / 0.5)  # 13
    assert cps.count.numpy().tolist() == [n, n] and sampler.truncated.numpy().tolist() == [0, 0]
    assert sampler.step.numpy()[0] == pytest.approx(N * CHORD / n, rel=1e-5)
    m = cps.stride
    assert np.allclose(cps.position.numpy()[0], [1, 0, 0], atol=1e-6)
    assert np.allclose(cps.left.numpy()[0], [0.9, 0, 0], atol=1e-6) and np.allclose(
        cps.right.numpy()[0], [1.1, 0, 0], atol=1e-6
    )
    assert np.allclose(cps.tangent.numpy()[0], [0, 1, 0], atol=2e-2) and cps.up_half.numpy()[0] == pytest.approx(1e30)
    assert np.isnan(cps.position.numpy()[n]).all() and m >= n
    assert sampler.sample() is cps

    pos = np.float32([at(-0.02), at(-0.02)])
    tracker = ProgressTracker(cps, position=pos)
    passed = 0
    for step in range(130):  # one lap and a bit, 0.05 rad per step
        pos[:] = at(-0.02 + 0.05 * step)
        ev = tracker.update()
        passed += ev.passed.numpy()[0]
    assert ev is tracker.events
    assert ev.laps.numpy().tolist() == [1, 1] and ev.progress.numpy().tolist() == [n + 1, n + 1] and passed == n + 1
    assert tracker.next_checkpoint_state.numpy().tolist() == [1, 1]
    nxt = cps.position.numpy()[1]
    assert ev.dist_to_next.numpy()[0] == pytest.approx(np.linalg.norm(nxt - pos[0]), abs=1e-5)
    tracker.reset(np.array([True, False]))
    assert tracker.next_checkpoint_state.numpy().tolist() == [0, 1]
    pos[:] = at(0.02)
    tracker.update()
    pos[:] = at(-0.02)  # backwards through checkpoint 0, env 0's target
    ev = tracker.update()
    assert ev.wrong_way.numpy()[0] == 1 and ev.passed.numpy()[0] == 0
    assert ev.clone().laps.numpy().tolist() == ev.laps.numpy().tolist()


def test_localizer_cold_and_warm(circle):
    t, _ = circle
    pos = np.float32([at(0.3, 1.05), at(-0.3, 0.95, 0.2)])
    cold = TrackLocalizer(t)
    f = cold.query(pos)
    # Segment 9 holds angle 0.3 (2 pi / 200 per segment); right of travel is outward on a CCW loop.
    assert f.segment.numpy().tolist() == [9, N - 10]
    assert f.s.numpy()[0] == pytest.approx(0.3, abs=2e-4)
    assert f.s.numpy()[1] == pytest.approx(N * CHORD - 0.3, abs=2e-4)
    assert f.n.numpy()[0] == pytest.approx(0.05, abs=2e-4) and f.n.numpy()[1] == pytest.approx(-0.05, abs=2e-4)
    assert f.n_up.numpy()[1] == pytest.approx(0.2, abs=1e-6)
    warm = TrackLocalizer(t, warm_window=3, position=pos)
    w = warm.query()
    assert np.allclose(w.s.numpy(), f.s.numpy()) and warm.last_segment.numpy().tolist() == [9, N - 10]
    warm.reset()
    assert warm.last_segment.numpy().tolist() == [-1, -1]
    with pytest.raises(ValueError, match="warm_window"):
        TrackLocalizer(t, warm_window=0)


def test_curvature_and_speed_profile_of_a_circle(circle):
    t, _ = circle
    k = curvature(t).numpy()
    kappa = (2 * math.pi / N) / CHORD  # turn per vertex over the mean edge length
    assert k.shape == (E * N_MAX,) and np.allclose(k[:N], kappa, rtol=1e-4) and np.isnan(k[N:N_MAX]).all()
    v = speed_profile(t, a_lat_max=2.0, a_accel=1.0, a_brake=2.0, v_cap=1.5).numpy()
    assert np.allclose(v[:N], math.sqrt(2.0 / kappa), rtol=1e-4)
    flat = speed_profile(t, 2.0, 1.0, 2.0, 1.2, kappa=np.zeros(E * N_MAX, np.float32)).numpy()
    assert np.allclose(flat[:N], 1.2)
    with pytest.raises(ValueError, match="v_cap"):
        speed_profile(t, 2.0, 1.0, 2.0, 0.0)


def test_props_along_the_outer_border(circle):
    t, _ = circle
    perimeter = N * 2 * 1.1 * math.sin(math.pi / N)
    ps = PropSampler(t, 0.5)
    p = ps.sample()
    n = round(perimeter / 0.5)  # 14
    assert p is ps.props and p.count.numpy().tolist() == [n, n] and p.truncated.numpy().tolist() == [0, 0]
    assert p.step.numpy()[0] == pytest.approx(perimeter / n, rel=1e-5)
    assert np.allclose(p.position.numpy()[0], [1.1, 0, 0], atol=1e-5)
    assert p.yaw.numpy()[0] == pytest.approx(math.pi / 2, abs=2e-2) and p.length.numpy()[0] == pytest.approx(
        perimeter / n, rel=1e-5
    )
    seg = PropSampler(t, 0.5, boundary="inner", mode="segments").props
    assert np.linalg.norm(seg.position.numpy()[0, :2]) < 0.9
    with pytest.raises(ValueError, match="boundary"):
        PropSampler(t, 0.5, boundary="left")


def test_heightfield_of_a_raised_flat_track():
    t = track_gen.Track(**circle_arrays(z=0.5))
    hf = HeightFieldBaker(t, resolution=16)
    h = hf.bake()
    assert h is hf.heightfield and h.res == 16 and h.height.shape == (E * 256,)
    assert np.allclose(h.height.numpy(), 0.5)
    assert np.allclose(h.lo.numpy()[0], [-1.32, -1.32], atol=1e-4) and np.allclose(
        h.hi.numpy()[0], [1.32, 1.32], atol=1e-4
    )
    with pytest.raises(ValueError, match="resolution"):
        HeightFieldBaker(t, resolution=4)


@pytest.fixture()
def gates():
    cfg = track_gen.GateGenConfig(num_envs=4, gate_width=0.1)
    return track_gen.GateGenerator(cfg, track_gen.PerEnvSeededRNG(0, 4)).generate()


def test_gate_checkpoints_course_line_and_frames(gates):
    cps = CheckpointSet.from_gates(gates)
    assert cps.position.ptr == gates.position.ptr and cps.tangent.ptr == gates.forward.ptr
    assert cps.up_half.ptr == gates.half_size.ptr and cps.clone().position.ptr != cps.position.ptr
    line = CourseLine(gates, samples_per_gate=4)
    e = int(np.argmax(gates.valid.numpy()))
    n = int(gates.count.numpy()[e])
    lt = line.refresh()
    assert lt.count.numpy()[e] == 4 * n
    assert np.allclose(lt.points(e)[::4], gates.points(e), atol=1e-6)  # point i * spg is gate i's centre
    assert np.from_dlpack(lt.center).shape == (4 * 4 * gates.max_gates, 3)
    lt.center.__dlpack__()  # a legacy consumer of a read-only array
    tracker = ProgressTracker(cps)
    fc = FrameChecker(gates, 4, radius=0.01, frame_thickness=0.01, frame_depth=0.01)
    with pytest.raises(RuntimeError):
        fc.query()
    pos = np.tile(gates.points(e)[0], (4, 1)).astype(np.float32)
    fc.bind_inputs(pos)
    fc.bind_window(tracker.next_checkpoint_state)
    assert fc.query().hit.numpy()[e] == 0  # the centre of the opening
    pos[e] = gates.points(e, "left")[0]  # on the left post
    r = fc.query()
    assert r.hit.numpy()[e] == 1 and r.depth.numpy()[e] > 0
    # Your own arrays as checkpoints: a gate across x = 1 facing +x.
    own = CheckpointSet(
        np.float32([[1, 0, 0]]),
        np.float32([[1, 1, 0]]),
        np.float32([[1, -1, 0]]),
        np.float32([[1, 0, 0]]),
        np.float32([1.0]),
        np.int32([1]),
    )
    pt = ProgressTracker(own)
    pt.update(np.float32([[0, 0, 0]]))
    assert pt.update(np.float32([[2, 0, 0]])).passed.numpy().tolist() == [1]


def test_gate_sequence_from_arrays_is_zero_copy(gates):
    arrays = {name: getattr(gates, name).numpy().copy() for name in track_gen.GateSequence.fields}
    own = track_gen.GateSequence(**arrays)
    assert own.num_envs == 4 and own.max_gates == gates.max_gates
    assert own.position.ptr == arrays["position"].__array_interface__["data"][0]
    line = CourseLine(own, samples_per_gate=2)
    ref = CourseLine(gates, samples_per_gate=2)
    assert np.array_equal(line.track.center.numpy(), ref.track.center.numpy(), equal_nan=True)
    with pytest.raises(ValueError, match="orientation"):
        track_gen.GateSequence(**dict(arrays, orientation=arrays["orientation"][:, :3]))

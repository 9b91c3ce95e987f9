"""track_gen, the original package's API: exports, configs, the RNG, the generators and their arrays.

Expectations are hand-computed (the RNG's PCG hash, config defaults from the
reference's field tables) or computed by the C++ library through `trackgen`
(the same batch bit for bit)."""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

import track_gen
import trackgen

E = 8


def pcg(x):
    """The RNG's hash on Python ints (mod 2**32), written out by hand."""
    m = 0xFFFFFFFF
    b = (x * 747796405 + 2891336453) & m
    c = (((b >> ((b >> 28) + 4)) ^ b) * 277803737) & m
    return (c >> 22) ^ c


def make(num_envs=E, seed=0, **fields):
    cfg = track_gen.TrackGenConfig(num_envs=num_envs, **fields)
    return track_gen.TrackGenerator(cfg, track_gen.PerEnvSeededRNG(seed, num_envs, "cpu"))


def test_every_name_of_the_original_surface_is_exported():
    assert track_gen.__version__ == "0.1.0"
    for name in [
        "TrackGenerator",
        "TrackGenConfig",
        "Track",
        "GateGenerator",
        "GateGenConfig",
        "GateSequence",
        "PerEnvSeededRNG",
        "collision",
        "props",
        "checkpoints",
        "progress",
        "localize",
        "course",
        "heightfield",
        "set_capturing",
    ]:
        assert hasattr(track_gen, name), name
    modules = {
        "collision": ["CollisionChecker", "BoxContact", "DiscChecker", "DiscContact"],
        "props": ["PropSampler", "PropSet"],
        "checkpoints": ["CheckpointSampler", "CheckpointSet"],
        "progress": ["ProgressTracker", "ProgressEvents"],
        "localize": ["TrackLocalizer", "TrackFrame", "curvature", "speed_profile"],
        "course": ["Course", "CourseConfig", "StepResult", "set_capturing"],
        "heightfield": ["HeightFieldBaker", "HeightField"],
        "collision_frames": ["FrameChecker", "FrameContact"],
        "course_line": ["CourseLine"],
        "generator_registry": ["GeneratorSpec", "register", "get", "available"],
        "gate_generator_registry": ["GateGeneratorSpec", "register", "get", "available"],
        "exec": ["SeedState", "CaptureError", "NotCapturableError", "LaunchContext", "GraphRunner", "unconditional"],
    }
    for module, names in modules.items():
        m = getattr(track_gen, module)
        for name in names:
            assert hasattr(m, name), f"track_gen.{module}.{name}"
    import track_gen.interop.torch as tt  # noqa: PLC0415

    assert callable(tt.retain) and callable(tt.registered)


def test_config_defaults_are_the_originals():
    c = track_gen.TrackGenConfig()
    assert dataclasses.is_dataclass(c)
    expected = dict(
        generator="bezier",
        device="cpu",
        num_envs=1,
        min_num_points=9,
        max_num_points=13,
        num_points_per_segment=30,
        min_point_distance=0.05,
        rad=0.4,
        edgy=0.0,
        scale=1.0,
        handle_clamp_frac=0.4,
        hull_displacement=0.15,
        style_sampling=False,
        rad_range=None,
        checkpoint_count=12,
        checkpoint_radius_min_frac=0.33,
        polar_num_knots=12,
        voronoi_num_sites=256,
        voronoi_site_layout="void_ring",
        repulsive_stages=(64, 128, 256),
        half_width=0.1,
        num_points=256,
        output_mode="constant_spacing",
        N_max=384,
        turning_tol=0.1,
        relax_enable=True,
        relax_solver="xpbd",
        relax_iters=50,
        relax_accel="chebyshev",
        relax_cheby_rho=0.98,
        relax_margin=0.15,
        z_profile="flat",
        z_control_points=10,
        max_regen_iters=10,
        energy_steps=800,
        tp_iters=100,
        smooth_finish=False,
        num_harmonics=5,
    )
    for name, value in expected.items():
        assert getattr(c, name) == value, name
    assert c.spacing == pytest.approx(0.06)  # auto-filled 0.6 * half_width
    assert c.min_angle == pytest.approx(0.21817, abs=1e-5)
    assert c.validity_border_check is True  # TrackGen's deliberate default (the original: False)
    g = track_gen.GateGenConfig()
    for name, value in dict(
        min_gates=4,
        max_gates=32,
        gate_radius=0.025,
        gate_solve_iters=8,
        gate_width=0.0,
        gate_ordering="ccw",
        gate_align="yaw_only",
        device="cpu",
    ).items():
        assert getattr(g, name) == value, name


def test_config_is_a_validating_dataclass():
    c = track_gen.TrackGenConfig(num_envs=4, generator="polar")
    d = dataclasses.replace(c, half_width=0.2, spacing=None)
    assert d.num_envs == 4 and d.spacing == pytest.approx(0.12)
    with pytest.raises(ValueError, match="num_envs"):
        dataclasses.replace(c, num_envs=0)
    with pytest.raises(ValueError, match="half_width"):
        track_gen.TrackGenConfig(half_width=-1.0)
    with pytest.raises(ValueError, match="num_envs"):
        track_gen.TrackGenConfig(num_envs=2**100)
    with pytest.raises(ValueError, match="cuda.*CUDA build"):
        track_gen.TrackGenConfig(device="cuda:0")
    with pytest.raises(ValueError, match="num_harmonics"):
        track_gen.TrackGenConfig(num_harmonics=7)  # the experimental Fourier generator
    track_gen.TrackGenConfig(energy_steps=5, tp_iters=3, relax_chunk_size=64, max_regen_iters=1)  # inert
    assert track_gen.TrackGenConfig(repulsive_stages=np.array([64, 128, 256])).repulsive_stages is not None
    assert pickle.loads(pickle.dumps(c)) == c and copy.deepcopy(c) == c
    assert track_gen.GateGenConfig(num_envs=3, gate_width=0.1).gate_width == 0.1
    with pytest.raises(ValueError, match="min_gates"):
        track_gen.GateGenConfig(min_gates=1)


def test_config_json_round_trip_and_bad_files(tmp_path):
    c = track_gen.TrackGenConfig(num_envs=5, generator="hull", half_width=0.05)
    p = tmp_path / "c.json"
    p.write_text(c.to_json())
    assert track_gen.TrackGenConfig.from_json(p) == c
    with pytest.raises(ValueError, match="folder"):
        track_gen.TrackGenConfig.from_json(tmp_path)
    b = tmp_path / "b.bin"
    b.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError):
        track_gen.TrackGenConfig.from_json(b)


def test_rng_seeds_states_and_rebinding():
    rng = track_gen.PerEnvSeededRNG(5, 4, "cpu")
    assert rng.seeds_warp.numpy().tolist() == [5, 6, 7, 8]
    assert rng.states_warp.numpy().tolist() == [pcg(s) for s in (5, 6, 7, 8)]
    rng.set_seeds_warp(np.array([100, -1], np.int32), np.array([2, 0], np.int32))
    assert rng.seeds_warp.numpy().tolist() == [-1, 6, 100, 8]
    assert int(rng.states_warp.numpy()[0]) == pcg(0xFFFFFFFF)
    mine = np.arange(4, dtype=np.int32)
    bound = track_gen.PerEnvSeededRNG(mine, 4)
    bound.set_seeds_warp(np.array([9], np.int32))
    assert mine[0] == 9  # bound by reference
    wide = np.arange(4)  # int64: copied
    copied = track_gen.PerEnvSeededRNG(wide, 4)
    copied.set_seeds_warp([7, 7])  # a list, any integer dtype
    assert wide[0] == 0 and copied.seeds_warp.numpy().tolist() == [7, 7, 2, 3]
    with pytest.raises(ValueError, match="outside int32"):
        copied.set_seeds_warp(np.array([2**40]))
    with pytest.raises(ValueError, match="seeds must be int32"):
        copied.set_seeds_warp(np.array([1.5]))
    with pytest.raises(ValueError, match="k <= 2147483644"):
        track_gen.PerEnvSeededRNG(2**31 - 2, 4)  # TrackGen refuses seeds that would wrap
    with pytest.raises(ValueError, match="cpu"):
        track_gen.PerEnvSeededRNG(0, 4, "metal")


def test_rng_sampling_helpers_draw_from_counter_offsets():
    rng = track_gen.PerEnvSeededRNG(3, 2)
    s0 = [pcg(3), pcg(4)]
    u = rng.sample_uniform_warp(0.0, 2.0, (3,))
    assert u.shape == (2, 3) and u.dtype == np.float32
    u = u.numpy()
    for i in range(2):
        for j in range(3):
            expect = np.float32(2.0) * np.float32((pcg((s0[i] + j) & 0xFFFFFFFF) >> 8) * 2.0**-24)
            assert u[i, j] == pytest.approx(expect, rel=1e-6)
    assert rng.states_warp.numpy().tolist() == [(s + 3) & 0xFFFFFFFF for s in s0]  # advanced by prod(shape)
    k = rng.sample_integer_warp(0, 10, (1,))
    assert k.shape == (2,) and all(0 <= x < 10 for x in k.numpy())
    q2 = rng.sample_quaternion_warp((2,))
    assert q2.shape == (2, 2) and q2.dtype is track_gen._array.quatf and q2.numpy().shape == (2, 2, 4)
    q = rng.sample_quaternion_warp((1,)).numpy()
    assert np.allclose(np.linalg.norm(q, axis=-1), 1, atol=1e-5)
    assert set(rng.sample_sign_warp((5,)).numpy().ravel()) <= {-1, 1}
    assert rng.sample_normal_warp(0.0, 1.0, (4,)).shape == (2, 4)
    assert (rng.sample_poisson_warp(3.0, (4,)).numpy() >= 0).all()


def test_track_generator_contract():
    cfg = track_gen.TrackGenConfig(num_envs=E)
    with pytest.raises(ValueError, match="rng"):
        track_gen.TrackGenerator(cfg, None)
    gen = make()
    t = gen.generate()
    assert gen.generate(E) is t and gen.generate(np.int64(E)) is t and gen.generate(None) is t
    with pytest.raises(TypeError):
        gen.generate(True)
    with pytest.raises(TypeError):
        gen.generate([0, 1])
    with pytest.raises(ValueError):
        gen.generate(E + 1)
    with pytest.raises(ValueError, match="generator.*bezier.*voronoi"):
        make(generator="nope")  # refused by the config already, listing the names
    with pytest.raises(AssertionError):
        make(relax_solver="energy")
    with pytest.raises(ValueError, match="smooth_finish"):
        make(smooth_finish=True)
    # The same batch as the C++ library's through trackgen (base seeds 0..E-1).
    ref = trackgen.TrackGenerator(num_envs=E, seed=0).track
    for name in track_gen.Track.fields:
        assert np.array_equal(getattr(t, name).numpy(), getattr(ref, name), equal_nan=True), name
    # Reseeding the rng changes the batch; the old seeds give it back.
    before = t.center.numpy().copy()
    gen.rng.set_seeds_warp(np.arange(100, 100 + E, dtype=np.int32))
    gen.generate()
    assert not np.array_equal(before, t.center.numpy(), equal_nan=True)
    gen.rng.set_seeds_warp(np.arange(E, dtype=np.int32))
    gen.generate()
    assert np.array_equal(before, t.center.numpy(), equal_nan=True)


def test_track_arrays_behave_like_the_originals():
    t = make().generate()
    n = E * t.N_max
    c = t.center
    assert c.shape == (n,) and len(c) == n and c.dtype is track_gen._array.vec3f and c.device == "cpu"
    assert c.numpy().shape == (n, 3) and c.numpy().dtype == np.float32
    assert np.asarray(c).__array_interface__["data"][0] == c.ptr == t._n._data_ptr("center")
    assert t.valid.dtype == np.int32 and t.length.shape == (E,) and t.arclen.dtype == np.float32
    assert np.from_dlpack(c).__array_interface__["data"][0] == c.ptr
    c.__dlpack__()  # a legacy consumer (no max_version)
    assert np.array_equal(c[3], c.numpy()[3], equal_nan=True)
    counts, valid = t.count.numpy(), t.valid.numpy()
    assert valid.any() and (counts <= t.N_max).all()
    for e in np.flatnonzero(valid)[:3]:
        pts = t.points(int(e))
        outer = t.points(int(e), "outer")
        assert np.allclose(np.linalg.norm(outer[:, :2] - pts[:, :2], axis=1), 0.1, atol=1e-4)  # |outer-center| = hw
        assert t.arclen.numpy()[e * t.N_max] == 0
        pad = c.numpy()[e * t.N_max + counts[e]]
        assert np.isnan(pad[:2]).all() and pad[2] == 0  # NaN xy padding at z_base (flat profile)
    assert abs(t.winding.numpy()[valid == 1]).min() == 1
    kept = t.clone()
    assert kept.center.ptr != c.ptr and np.array_equal(kept.center.numpy(), c.numpy(), equal_nan=True)
    with pytest.raises(ValueError):
        t.points(1.5)


def test_gate_generator_matches_the_library_and_halves_the_width():
    cfg = track_gen.GateGenConfig(num_envs=E, gate_width=0.1)
    gen = track_gen.GateGenerator(cfg, track_gen.PerEnvSeededRNG(2, E))
    g = gen.generate()
    assert gen.generate(E) is g and gen.frame_fallbacks.shape == (E,)
    ref = trackgen.GateGenerator(num_envs=E, gate_width=0.1, seed=2).gates
    for name in track_gen.GateSequence.fields:
        assert np.array_equal(getattr(g, name).numpy(), getattr(ref, name), equal_nan=True), name
    e = int(np.argmax(g.valid.numpy()))
    assert np.allclose(g.points(e, "half_size"), 0.05)
    assert g.orientation.dtype is track_gen._array.quatf and g.orientation.numpy().shape == (E * g.max_gates, 4)
    with pytest.raises(TypeError):
        gen.generate(True)


def test_registries_and_capture_flag():
    assert track_gen.generator_registry.available() == sorted(trackgen.generators())
    assert track_gen.generator_registry.get("polar").name == "polar"
    with pytest.raises(ValueError, match="bezier"):
        track_gen.generator_registry.get("fourier")
    with pytest.raises(NotImplementedError):
        track_gen.generator_registry.register(track_gen.generator_registry.GeneratorSpec("x"))
    assert "checkpoint" in track_gen.gate_generator_registry.available()
    track_gen.set_capturing(True)
    assert track_gen.is_capturing()
    track_gen.set_capturing(False)
    assert track_gen.course.set_capturing is track_gen.set_capturing


def test_exec_seed_state_and_effective_seeds():
    ex = track_gen.exec
    assert ex.effective_seed(7, 0) == 7 and ex.effective_seed(7, 1) == 1572047580  # docs/differences.md
    s = ex.SeedState(4, "cpu", 10)
    assert s.seeds.numpy().tolist() == [10, 11, 12, 13] and not s.bound
    s.advance(np.array([0, 1, 0, 1], np.int32))
    assert s.epoch.numpy().tolist() == [0, 1, 0, 1]
    out = np.zeros(4, np.int32)
    s.effective(out)
    assert out.tolist() == [ex.effective_seed(10, 0), ex.effective_seed(11, 1), 12, ex.effective_seed(13, 1)]
    s.set(np.array([5, 6, 7, 8], np.int32))
    assert s.epoch.numpy().tolist() == [0, 0, 0, 0]
    rng = track_gen.PerEnvSeededRNG(0, 4)
    bound = ex.SeedState(4, "cpu", rng)
    assert bound.bound
    with pytest.raises(RuntimeError):
        bound.set(np.zeros(4, np.int32))
    assert issubclass(ex.NotCapturableError, ex.CaptureError) and issubclass(ex.CaptureError, RuntimeError)
    runner = ex.GraphRunner("cpu", capturable=True)
    hits = []
    runner.run(lambda ctx: hits.append(ctx.device))
    assert hits == ["cpu"] and runner.graph is None
    flag = np.zeros(1, np.int32)
    track_gen.ops.any_set(np.array([0, 0, 2], np.int32), flag)
    assert flag[0] == 1
    with ex.unconditional():
        pass


def test_torch_interop_helpers_without_cuda():
    import track_gen.interop.torch as tt  # noqa: PLC0415

    class Graph:
        pass

    g = Graph()
    owner = object()
    tt.retain(g, owner, None, owner)
    assert g._track_gen_owners == [owner]
    with pytest.raises(track_gen.exec.CaptureError):
        with tt.registered():
            pass

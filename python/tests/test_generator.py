"""TrackGenerator, Track and TrackGenConfig from Python: zero copy, seeds, masks, errors."""

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import trackgen

E = 16
PER_POINT = ("center", "outer", "inner", "tangent", "normal")


def env_rows(track, field, e):
    a = np.asarray(getattr(track, field))
    return a[e * track.n_max : (e + 1) * track.n_max]


def test_arrays_have_the_documented_shapes_and_dtypes():
    track = trackgen.TrackGenerator(num_envs=E, seed=0).generate()
    n = E * track.n_max
    for name in PER_POINT:
        a = getattr(track, name)
        assert a.shape == (n, 3) and a.dtype == np.float32, name
    assert track.arclen.shape == (n,) and track.arclen.dtype == np.float32
    for name, dtype in (("valid", np.int32), ("count", np.int32), ("length", np.float32), ("winding", np.float32)):
        a = getattr(track, name)
        assert a.shape == (E,) and a.dtype == dtype, name
    assert track.valid.sum() > E // 2
    e = int(np.argmax(track.valid))
    real = track.points(e)
    assert real.shape == (track.count[e], 3) and np.isfinite(real).all()
    assert np.isnan(env_rows(track, "center", e)[track.count[e] :, :2]).all()  # padding: x, y NaN


def test_every_field_of_the_cpp_track_is_an_array_of_the_python_track():
    # The Python Track's fields come from the C++ Track's own field list: every
    # field reaches Python, with its shape, dtype and memory.
    track = trackgen.TrackGenerator(num_envs=E, seed=0).generate()
    names = [f[0] for f in trackgen.Track.fields]
    assert names == [f[0] for f in trackgen._trackgen._Track.fields]
    assert len(set(names)) == len(names) and {"sep_overflow", "invalid_reason"} <= set(names)
    for name, per_point, components, dtype in trackgen.Track.fields:
        a = np.asarray(getattr(track, name))
        rows = E * track.n_max if per_point else E
        assert a.shape == ((rows, components) if components > 1 else (rows,)), name
        assert a.dtype == np.dtype(dtype), name
        assert a.ctypes.data == track._data_ptr(name), name
        assert name in getattr(trackgen.Track, name).__doc__
    with pytest.raises(ValueError, match="unknown field 'nope'"):
        track._data_ptr("nope")


def test_a_producers_arrays_are_read_only_and_a_clone_is_writable():
    track = trackgen.TrackGenerator(num_envs=E, seed=0).generate()
    for name in PER_POINT + ("arclen", "length", "count", "valid"):
        assert not np.asarray(getattr(track, name)).flags.writeable, name
    with pytest.raises(ValueError):
        np.asarray(track.center)[0, 0] = 1.0
    copy = track.clone()
    a = np.asarray(copy.center)
    assert a.flags.writeable
    a[0, 0] = 1.0
    assert np.asarray(copy.center)[0, 0] == 1.0


def test_arrays_share_the_views_memory_and_generate_refills_it_in_place():
    gen = trackgen.TrackGenerator(num_envs=E, seed=1)
    track = gen.generate()
    arrays = {name: np.asarray(getattr(track, name)) for name in PER_POINT + ("arclen", "length", "count", "valid")}
    for name, a in arrays.items():
        assert a.ctypes.data == track._data_ptr(name), name
        assert not a.flags.owndata, name
    before = {name: a.copy() for name, a in arrays.items()}
    assert gen.generate() is track
    gen.rebind_seeds(1000)
    gen.generate()
    for name in ("center", "outer", "length"):
        assert not np.array_equal(arrays[name], before[name], equal_nan=True), name  # changed in place
        assert arrays[name].ctypes.data == track._data_ptr(name)
    gen.rebind_seeds(1)
    gen.generate()
    for name, a in arrays.items():
        assert np.array_equal(a, before[name], equal_nan=True), name


def test_arrays_keep_the_memory_alive_after_the_generator_and_track_are_gone():
    gen = trackgen.TrackGenerator(num_envs=E, seed=2)
    center = gen.generate().center
    expected = center.copy()
    del gen
    junk = [trackgen.TrackGenerator(num_envs=E, seed=99).generate().center.copy() for _ in range(3)]
    assert junk and np.array_equal(center, expected, equal_nan=True)


def test_clone_is_independent_of_later_generations():
    gen = trackgen.TrackGenerator(num_envs=E, seed=3)
    kept = gen.generate().clone()
    assert kept._data_ptr("center") != gen.track._data_ptr("center")
    assert np.array_equal(kept.center, gen.track.center, equal_nan=True)
    gen.rebind_seeds(500)
    gen.generate()
    assert not np.array_equal(kept.center, gen.track.center, equal_nan=True)
    assert np.array_equal(kept.center, trackgen.TrackGenerator(num_envs=E, seed=3).track.center, equal_nan=True)


def test_int_seed_means_k_plus_arange_and_arrays_are_accepted():
    by_int = trackgen.TrackGenerator(num_envs=E, seed=40)
    by_array = trackgen.TrackGenerator(num_envs=E, seed=40 + np.arange(E, dtype=np.int32))
    assert np.array_equal(by_int.seeds, 40 + np.arange(E))
    for name in PER_POINT + ("arclen", "length", "valid", "count", "winding"):
        assert np.array_equal(getattr(by_int.track, name), getattr(by_array.track, name), equal_nan=True), name
    # One env's seed alone decides its track.
    single = trackgen.TrackGenerator(num_envs=1, seed=45).track
    assert np.array_equal(single.center[: single.n_max], env_rows(by_int.track, "center", 5), equal_nan=True)


@pytest.mark.parametrize(
    "seed, message",
    [
        (np.zeros(E - 1, np.int32), f"seed must have shape ({E},)"),
        (np.zeros((E, 1), np.int32), f"seed must have shape ({E},)"),
        (np.zeros(E, np.int64), "seed must be an int or an int32 array"),
        (np.zeros(E, np.float32), "seed must be an int or an int32 array"),
        (2**31, "seed must fit in int32"),
        (True, "seed must be an int or an int32 array"),
    ],
)
def test_wrong_seeds_raise_value_error_naming_the_argument(seed, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        trackgen.TrackGenerator(num_envs=E, seed=seed)
    gen = trackgen.TrackGenerator(num_envs=E, seed=0)
    with pytest.raises(ValueError, match="seed"):
        gen.rebind_seeds(seed)


def test_masked_regeneration_from_a_numpy_mask():
    gen = trackgen.TrackGenerator(num_envs=E, seed=7)
    track = gen.track
    before = track.clone()
    mask = np.zeros(E, np.int32)
    mask[[2, 9]] = 1
    gen.generate(mask, advance=True)
    assert np.array_equal(gen.epoch, mask)
    for e in range(E):
        same = np.array_equal(env_rows(track, "center", e), env_rows(before, "center", e), equal_nan=True)
        assert same == (e not in (2, 9)), e
    # A regenerated env equals a fresh generation at its new epoch; a bool mask works the same.
    full = trackgen.TrackGenerator(num_envs=E, seed=7)
    full.generate(np.ones(E, bool), advance=True)
    for e in (2, 9):
        assert np.array_equal(env_rows(track, "center", e), env_rows(full.track, "center", e), equal_nan=True)
    # Without advance, masked envs are regenerated at their current epoch: no change.
    after = track.clone()
    gen.generate(mask.astype(bool))
    assert np.array_equal(track.center, after.center, equal_nan=True)


@pytest.mark.parametrize(
    "mask, message",
    [
        (np.zeros(E + 1, np.int32), "mask must have shape"),
        (np.zeros(E, np.float64), "mask must be an int32 or bool array"),
        (np.zeros(E, np.int64), "mask must be an int32 or bool array"),
    ],
)
def test_wrong_masks_raise_value_error_naming_the_argument(mask, message):
    gen = trackgen.TrackGenerator(num_envs=E, seed=0)
    with pytest.raises(ValueError, match=message):
        gen.generate(mask, advance=True)


def test_config_from_kwargs_dict_and_json_file(tmp_path):
    c = trackgen.TrackGenConfig(num_envs=8, generator="polar", half_width=0.08)
    assert (c.num_envs, c.generator, c.half_width) == (8, "polar", 0.08)
    assert trackgen.TrackGenConfig({"num_envs": 8, "generator": "polar", "half_width": 0.08}) == c
    path = tmp_path / "config.json"
    path.write_text(c.to_json())
    assert trackgen.TrackGenConfig.from_json(path) == c
    assert json.loads(c.to_json())["generator"] == "polar"
    c.generator = "hull"
    assert c.generator == "hull" and c.replace(num_envs=3).num_envs == 3
    gen = trackgen.TrackGenerator(str(path), seed=0)
    assert gen.num_envs == 8 and gen.config.generator == "polar"
    assert trackgen.TrackGenerator(c, num_envs=2).num_envs == 2
    assert "bezier" in trackgen.generators()


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"num_envs": 0}, "TrackGenConfig.num_envs: 0 is invalid"),
        ({"half_width": float("nan")}, "half_width"),
        ({"generator": "nope"}, "generator"),
        ({"no_such_field": 1}, 'unknown key "no_such_field"'),
        ({"num_envs": "many"}, "num_envs"),
    ],
)
def test_bad_config_raises_value_error_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        trackgen.TrackGenConfig(**fields)
    with pytest.raises(ValueError, match=message):
        trackgen.TrackGenerator(fields)


def test_bad_config_file_has_the_librarys_message(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"num_envs": 4, "min_num_points": 1}')
    with pytest.raises(ValueError, match="min_num_points") as info:
        trackgen.TrackGenConfig.from_json(path)
    missing = tmp_path / "missing.json"
    with pytest.raises(ValueError, match="trackgen::load_config"):
        trackgen.TrackGenConfig.from_json(missing)
    assert str(info.value)


def run_python(code, **env):
    full = dict(os.environ, OMP_PROC_BIND="false", **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, capture_output=True, text=True)


def test_arrays_alive_at_interpreter_exit_do_not_crash():
    r = run_python(
        """
        import numpy as np, trackgen as tg
        gen = tg.TrackGenerator(num_envs=8, seed=0)
        center, track, kept = gen.track.center, gen.track, gen.track.clone()
        cycle = [center]; cycle.append(cycle)      # freed only by the final collection
        view = np.asarray(kept.outer)[:3]
        course = tg.Course(gen={"num_envs": 4}, checkpoint_spacing=0.3, localize=True)
        laps, s = course.step().events.laps, course.result.frame.s
        print("ok", int(gen.track.valid.sum()))
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok") and "Kokkos" not in r.stderr and "error" not in r.stderr.lower(), r.stderr


def test_thread_count_from_initialize_and_results_independent_of_it():
    code = """
        import sys, numpy as np, trackgen
        trackgen.initialize({threads})
        assert trackgen.concurrency() == {threads}, trackgen.concurrency()
        try:
            trackgen.initialize({threads} + 1)
            sys.exit("second initialize with another count did not raise")
        except RuntimeError as e:
            assert "already initialized" in str(e)
        t = trackgen.TrackGenerator(num_envs=32, seed=11).track
        sys.stdout.write(np.ascontiguousarray(t.outer).tobytes().hex())
        """
    outs = []
    for threads in (1, 2):
        r = run_python(code.format(threads=threads))
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    r = run_python("import trackgen; print(trackgen.concurrency())", OMP_NUM_THREADS="1")
    assert r.returncode == 0 and r.stdout.strip() == "1", r.stderr


def test_objects_released_at_finalize_raise_instead_of_touching_kokkos():
    r = run_python(
        """
        import trackgen
        gen = trackgen.TrackGenerator(num_envs=4, seed=0)
        trackgen._trackgen._finalize()      # what the atexit handler runs
        for call in (gen.generate, gen.track.clone, lambda: gen.rebind_seeds(3)):
            try:
                call()
                raise SystemExit("no error after finalize")
            except RuntimeError as e:
                assert "finalized" in str(e), e
        try:
            trackgen.TrackGenerator(num_envs=4, seed=0)
            raise SystemExit("a new generator after finalize")
        except RuntimeError as e:
            assert "finalized" in str(e), e
        print("ok")
        """
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_generators_used_from_several_threads_give_the_sequential_results():
    import threading

    seeds = (0, 100, 200)
    expected = [trackgen.TrackGenerator(num_envs=E, seed=k).track.clone() for k in seeds]
    gens = [trackgen.TrackGenerator(num_envs=E, seed=k + 1) for k in seeds]
    errors = []

    def work(gen, k):
        try:
            for _ in range(3):
                gen.rebind_seeds(k)
                gen.generate()
                gen.track.clone()
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(g, k)) for g, k in zip(gens, seeds)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for gen, want in zip(gens, expected):
        for name in PER_POINT + ("length", "valid"):
            assert np.array_equal(getattr(gen.track, name), getattr(want, name), equal_nan=True), name

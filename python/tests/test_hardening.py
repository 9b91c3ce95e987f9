"""Hostile inputs to the Python package (issue 50): threads, thread counts, huge
numbers, arrays as list fields, bad files, seeds that would wrap, pickling,
DLPack without max_version, leak reports at exit, float env indices."""

import copy
import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import track_gen
import trackgen


def run_python(code):
    env = dict(os.environ, OMP_PROC_BIND="false")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def in_thread(fn):
    out = {}

    def body():
        try:
            out["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - reported to the test
            out["error"] = err

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_objects_are_built_and_used_off_the_main_thread():
    gen = in_thread(lambda: trackgen.TrackGenerator(num_envs=4))
    assert gen.track.valid.shape == (4,)
    gates = in_thread(lambda: trackgen.GateGenerator(num_envs=4, gate_width=0.1))
    assert gates.gates.count.shape == (4,)
    course = in_thread(lambda: trackgen.Course(gen={"num_envs": 4}, checkpoint_spacing=0.3))
    in_thread(course.step)
    t = in_thread(
        lambda: track_gen.TrackGenerator(
            track_gen.TrackGenConfig(num_envs=4), track_gen.PerEnvSeededRNG(0, 4)
        ).generate()
    )
    assert np.array_equal(t.center.numpy(), gen.track.center, equal_nan=True)


def test_first_object_in_a_thread_initializes_kokkos():
    r = run_python(
        "import threading, trackgen\n"
        "out = []\n"
        "t = threading.Thread(target=lambda: out.append(trackgen.TrackGenerator(num_envs=4)))\n"
        "t.start(); t.join()\n"
        "g = trackgen.TrackGenerator(num_envs=4)\n"  # then the main thread
        "out[0].generate(); print(int(g.track.count.sum() == out[0].track.count.sum()))\n"
    )
    assert r.returncode == 0 and r.stdout.strip() == "1", r.stderr


def test_initialize_bounds_the_thread_count():
    r = run_python(
        "import trackgen\n"
        "try:\n    trackgen.initialize(1000)\nexcept ValueError as e:\n    print('ValueError', e)\n"
        "print(trackgen.is_initialized())\n"
    )
    assert r.returncode == 0, r.stderr
    assert "ValueError" in r.stdout and "at most" in r.stdout and r.stdout.strip().endswith("False")
    r = run_python(
        "import os, trackgen\nos.environ['OMP_NUM_THREADS'] = '100000'\ntrackgen.TrackGenerator(num_envs=2)\n"
    )
    assert r.returncode != 0 and "too many threads" in r.stderr
    r = run_python("import os, trackgen\nos.environ['OMP_NUM_THREADS'] = '100000'\ntrackgen.initialize()\n")
    assert r.returncode != 0 and "OMP_NUM_THREADS=100000" in r.stderr, r.stderr


def test_huge_and_array_config_values_name_the_field():
    with pytest.raises(ValueError, match="num_envs"):
        trackgen.TrackGenConfig(num_envs=2**100)
    c = trackgen.TrackGenConfig(repulsive_stages=np.array([64, 128, 256]))
    assert c.repulsive_stages == [64, 128, 256]
    with pytest.raises(ValueError, match="repulsive_stages"):
        trackgen.TrackGenConfig(repulsive_stages=np.array([64.5, 128.0]))


def test_from_json_on_a_folder_or_a_binary_file(tmp_path):
    with pytest.raises(ValueError, match="folder"):
        trackgen.TrackGenConfig.from_json(tmp_path)
    b = tmp_path / "b.bin"
    b.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(ValueError):
        trackgen.TrackGenConfig.from_json(b)
    with pytest.raises(ValueError, match="folder"):
        trackgen.GateGenConfig.from_json(tmp_path)


def test_seeds_that_would_wrap_are_refused_like_the_cli():
    with pytest.raises(ValueError, match="k <= 2147483644"):
        trackgen.TrackGenerator(num_envs=4, seed=2**31 - 2)
    gen = trackgen.TrackGenerator(num_envs=4, seed=2**31 - 4)  # k + 3 fits
    with pytest.raises(ValueError, match="would wrap"):
        gen.rebind_seeds(2**31 - 1)


def test_configs_pickle_and_deep_copy():
    c = trackgen.TrackGenConfig(num_envs=7, generator="polar")
    assert pickle.loads(pickle.dumps(c)) == c and copy.deepcopy(c) == c and copy.copy(c) == c
    g = trackgen.GateGenConfig(num_envs=3, gate_width=0.2)
    assert pickle.loads(pickle.dumps(g)) == g


def test_dlpack_without_max_version_shares_read_only_arrays():
    gen = trackgen.TrackGenerator(num_envs=2)
    center = gen.track.center
    assert not center.flags.writeable
    capsule = center.__dlpack__()  # a legacy consumer
    assert type(capsule).__name__ == "PyCapsule"
    view = np.from_dlpack(center)
    assert view.__array_interface__["data"][0] == gen.track._data_ptr("center")


def test_dlpack_view_alive_at_exit_prints_no_leak_report():
    r = run_python(
        "import numpy as np, trackgen\n"
        "g = trackgen.TrackGenerator(num_envs=2)\n"
        "keep = np.from_dlpack(g.track.center)\n"
        "import track_gen\n"
        "t = track_gen.TrackGenerator(track_gen.TrackGenConfig(num_envs=2), track_gen.PerEnvSeededRNG(0, 2)).generate()\n"
        "keep2 = np.from_dlpack(t.center)\n"
    )
    assert r.returncode == 0 and "leak" not in r.stderr, r.stderr


def test_points_with_a_float_env_raises_value_error():
    t = trackgen.TrackGenerator(num_envs=2).track
    with pytest.raises(ValueError, match="env must be an int"):
        t.points(1.5)
    with pytest.raises(ValueError, match="env must be an int"):
        trackgen.GateGenerator(num_envs=2, gate_width=0.1).gates.points(0.5)

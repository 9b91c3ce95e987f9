"""The package gives the command-line tool's tracks bit for bit.

The `trackgen` executable comes from TRACKGEN_CLI, else from the repository's
build/openmp/apps/trackgen; the tests skip without one."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import trackgen


def find_cli():
    path = os.environ.get("TRACKGEN_CLI")
    if path:
        assert os.access(path, os.X_OK), f"TRACKGEN_CLI={path} is not an executable"
        return path
    default = pathlib.Path(__file__).resolve().parents[2] / "build" / "openmp" / "apps" / "trackgen"
    return str(default) if os.access(default, os.X_OK) else None


CLI = find_cli()
pytestmark = pytest.mark.skipif(CLI is None, reason="no trackgen executable (set TRACKGEN_CLI)")


def run_cli(tmp_path, *args):
    out = tmp_path / "out"
    env = dict(os.environ, OMP_PROC_BIND="false")
    r = subprocess.run([CLI, "generate", "--out", str(out), "--repeat", "1", *args], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads((out / "tracks.json").read_text())


def f32(values):
    """JSON numbers (shortest round-trip decimals of float32 values) back to float32, exactly."""
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def assert_same_bits(doc, track, seeds):
    assert len(doc["tracks"]) == track.num_envs
    for t in doc["tracks"]:
        e = t["env"]
        assert t["seed"] == seeds[e]
        assert t["valid"] == track.valid[e] and t["count"] == track.count[e], e
        assert f32(t["length"]).tobytes() == track.length[e : e + 1].tobytes(), e
        assert f32(t["winding"]).tobytes() == track.winding[e : e + 1].tobytes(), e
        for field in ("center", "outer", "inner"):
            expected = f32(t[field]).reshape(-1, 3)
            got = np.ascontiguousarray(track.points(e, field))
            assert expected.shape == got.shape and expected.tobytes() == got.tobytes(), (e, field)


def test_default_config_equals_the_cli_bit_for_bit(tmp_path):
    doc = run_cli(tmp_path, "--envs", "24", "--seed", "5")
    gen = trackgen.TrackGenerator(num_envs=24, seed=5)
    assert trackgen.TrackGenConfig(doc["config"]) == gen.config
    assert_same_bits(doc, gen.track, list(range(5, 29)))


@pytest.mark.parametrize("generator", ["polar", "hull", "voronoi", "checkpoint"])
def test_a_config_file_gives_the_cli_tracks_bit_for_bit(tmp_path, generator):
    config = trackgen.TrackGenConfig(
        num_envs=12, generator=generator, half_width=0.08, z_profile="random_walk", z_min=-0.5, z_max=0.5
    )
    path = tmp_path / "config.json"
    path.write_text(config.to_json())
    doc = run_cli(tmp_path, "--config", str(path), "--seed", "-3")
    gen = trackgen.TrackGenerator(path, seed=-3)
    assert_same_bits(doc, gen.track, list(range(-3, 9)))


def test_a_bad_config_file_has_the_clis_message(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"num_envs": 4, "half_width": -1}')
    with pytest.raises(ValueError) as info:
        trackgen.TrackGenConfig.from_json(path)
    r = subprocess.run([CLI, "generate", "--config", str(path), "--out", str(tmp_path / "o")],
                       env=dict(os.environ, OMP_PROC_BIND="false"), capture_output=True, text=True)
    assert r.returncode != 0 and str(info.value) in r.stderr, (str(info.value), r.stderr)

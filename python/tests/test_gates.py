"""GateGenerator and GateSequence from Python: zero copy, masks, errors, and the CLI's gates.json bit for bit."""

import json
import os
import subprocess

import numpy as np
import pytest

import trackgen
from test_cli import CLI, f32

E = 12


def test_gate_arrays_share_memory_and_masks_regenerate_only_their_envs():
    gen = trackgen.GateGenerator(num_envs=E, gate_width=0.1, seed=2)
    gates = gen.gates
    g = gates.max_gates
    assert gates.position.shape == (E * g, 3) and gates.orientation.shape == (E * g, 4)
    assert gates.valid.shape == (E,) and gates.count.dtype == np.int32
    position = np.asarray(gates.position)
    before = gates.clone()
    mask = np.zeros(E, bool)
    mask[4] = True
    assert gen.generate(mask, advance=True) is gates
    assert position.ctypes.data == gates._g.position.ctypes.data
    for e in range(E):
        same = np.array_equal(position[e * g : (e + 1) * g], before.position[e * g : (e + 1) * g], equal_nan=True)
        assert same == (e != 4), e
    assert np.array_equal(gen.epoch, mask.astype(np.int32))
    with pytest.raises(ValueError, match="seed must have shape"):
        gen.rebind_seeds(np.zeros(3, np.int32))


def test_every_field_of_the_cpp_gate_sequence_is_an_array_of_the_python_one():
    gates = trackgen.GateGenerator(num_envs=E, gate_width=0.1, seed=2).gates
    names = [f[0] for f in trackgen.GateSequence.fields]
    assert names == [f[0] for f in trackgen._trackgen._Gates.fields] and len(set(names)) == len(names)
    for name, per_gate, components, dtype in trackgen.GateSequence.fields:
        a = np.asarray(getattr(gates, name))
        rows = E * gates.max_gates if per_gate else E
        assert a.shape == ((rows, components) if components > 1 else (rows,)), name
        assert a.dtype == np.dtype(dtype), name


@pytest.mark.parametrize(
    "fields, message",
    [({"num_envs": 0}, "num_envs"), ({"generator": "nope"}, "generator"), ({"no_such": 1}, 'unknown key "no_such"')],
)
def test_bad_gate_config_raises_value_error_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        trackgen.GateGenConfig(**fields)


@pytest.mark.skipif(CLI is None, reason="no trackgen executable (set TRACKGEN_CLI)")
@pytest.mark.parametrize("generator", ["bezier", "checkpoint"])
def test_gates_equal_the_clis_gates_json_bit_for_bit(tmp_path, generator):
    config = trackgen.GateGenConfig(num_envs=E, generator=generator, gate_width=0.1)
    path = tmp_path / "gates.json"
    path.write_text(config.to_json())
    out = tmp_path / "out"
    r = subprocess.run(
        [CLI, "generate", "--mode", "gates", "--config", str(path), "--seed", "9", "--out", str(out), "--repeat", "1"],
        env=dict(os.environ, OMP_PROC_BIND="false"), capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "gates.json").read_text())
    gates = trackgen.GateGenerator(path, seed=9).gates
    assert len(doc["gates"]) == E
    for d in doc["gates"]:
        e = d["env"]
        assert d["seed"] == 9 + e and d["valid"] == gates.valid[e] and d["count"] == gates.count[e]
        for field in ("position", "forward", "left", "right"):
            expected = f32(d[field]).reshape(-1, 3)
            assert expected.tobytes() == np.ascontiguousarray(gates.points(e, field)).tobytes(), (e, field)

"""torch interop through DLPack (CPU tensors); skipped when torch is not installed."""

import numpy as np
import pytest

import trackgen

torch = pytest.importorskip("torch")


def test_from_dlpack_shares_memory_and_sees_regeneration():
    gen = trackgen.TrackGenerator(num_envs=8, seed=0)
    track = gen.track
    center = torch.from_dlpack(track.center)
    valid = torch.from_dlpack(track.valid)
    assert center.shape == (8 * track.n_max, 3) and center.dtype == torch.float32
    assert valid.dtype == torch.int32 and center.device.type == "cpu"
    assert center.data_ptr() == track._data_ptr("center")
    before = center.clone()
    gen.rebind_seeds(77)
    gen.generate()
    assert not torch.equal(torch.nan_to_num(center), torch.nan_to_num(before))
    assert np.array_equal(center.numpy(), track.center, equal_nan=True)


def test_a_torch_mask_and_seeds_are_accepted():
    gen = trackgen.TrackGenerator(num_envs=8, seed=torch.arange(8, dtype=torch.int32))
    mask = torch.zeros(8, dtype=torch.bool)
    mask[3] = True
    gen.generate(mask, advance=True)
    assert gen.epoch.tolist() == [0, 0, 0, 1, 0, 0, 0, 0]

"""track_gen with torch CPU tensors (skipped when torch is not installed): the
library's arrays as tensors without a copy, tensors as inputs and bound state."""

import numpy as np
import pytest

import track_gen
from track_gen.collision import CollisionChecker
from track_gen.progress import ProgressTracker
from track_gen.checkpoints import CheckpointSampler

torch = pytest.importorskip("torch")
E = 4


def test_arrays_are_tensors_without_a_copy_and_tensors_are_inputs():
    cfg = track_gen.TrackGenConfig(num_envs=E)
    rng = track_gen.PerEnvSeededRNG(torch.arange(E, dtype=torch.int32).numpy(), E)
    track = track_gen.TrackGenerator(cfg, rng).generate()
    center = torch.from_dlpack(track.center)
    assert center.shape == (E * track.N_max, 3) and center.dtype == torch.float32
    assert center.data_ptr() == track.center.ptr
    pos = torch.zeros((E, 3), dtype=torch.float32)
    rot = torch.tensor([[0, 0, 0, 1]] * E, dtype=torch.float32)
    he = torch.full((E, 2), 0.02)
    cc = CollisionChecker(track, 1, position=pos, orientation=rot, half_extents=he)
    pos[:] = torch.from_numpy(np.stack([track.points(e)[0] for e in range(E)]))  # written in place
    valid = track.valid.numpy().astype(bool)
    assert (cc.query().oob.numpy()[valid] == 0).all()
    tracker = ProgressTracker(CheckpointSampler(track, 0.3).checkpoints)
    assert torch.from_dlpack(tracker.update(pos).dist_to_next).shape == (E,)
    with pytest.raises(ValueError, match="float32"):
        cc.query(pos.double(), rot, he)

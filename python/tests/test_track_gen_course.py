"""track_gen.course: CourseConfig, Course and StepResult as the original's, checked
against the standalone utilities on the same batch (C++-computed expectations)."""

import dataclasses

import numpy as np
import pytest

import track_gen
from track_gen.checkpoints import CheckpointSampler
from track_gen.collision import BoxContact, CollisionChecker, DiscContact
from track_gen.course import Course, CourseConfig, StepResult
from track_gen.progress import ProgressTracker

E = 6


def track_config(**extra):
    fields = dict(
        mode="track", gen=track_gen.TrackGenConfig(num_envs=E), seeds=3, checkpoint_spacing=0.3, collision="segments"
    )
    fields.update(extra)
    return CourseConfig(**fields)


def state(n):
    return (np.zeros((n, 3), np.float32), np.tile(np.float32([0, 0, 0, 1]), (n, 1)), np.full((n, 2), 0.02, np.float32))


def test_track_course_step_equals_the_utilities():
    course = Course(track_config())
    pos, rot, he = state(E)
    with pytest.raises(RuntimeError):
        course.step()  # before generate() and bind()
    track = course.generate()
    assert track is course.generator.track and isinstance(track, track_gen.Track)
    with pytest.raises(RuntimeError, match="orientation"):
        course.bind(pos)
    course.bind(pos, rot, he)
    starts = np.stack([track.points(e)[0] for e in range(E)])
    pos[:] = starts
    r = course.step()
    assert isinstance(r, StepResult) and r is course.result and isinstance(r.contacts, BoxContact) and r.frame is None
    valid = track.valid.numpy().astype(bool)
    assert (r.contacts.oob.numpy()[valid] == 0).all()
    # The same batch and contacts as a TrackGenerator and a CollisionChecker at seeds 3..3+E-1.
    gen = track_gen.TrackGenerator(track_gen.TrackGenConfig(num_envs=E), track_gen.PerEnvSeededRNG(3, E))
    ref = gen.generate()
    assert np.array_equal(ref.center.numpy(), track.center.numpy(), equal_nan=True)
    cc = CollisionChecker(ref, 1)
    want = cc.query(pos, rot, he)
    assert np.array_equal(want.distance.numpy(), r.contacts.distance.numpy(), equal_nan=True)
    tracker = ProgressTracker(CheckpointSampler(ref, 0.3, course.checkpoints.stride).checkpoints)
    tracker.update(pos)
    assert np.array_equal(tracker.events.dist_to_next.numpy(), r.events.dist_to_next.numpy(), equal_nan=True)
    # State arrays are read in place; the results are rewritten in place.
    pos[:, 0] += 10
    course.step()
    assert (r.contacts.oob.numpy()[valid] == 1).all()
    assert course.checkpoint_sampler.truncated.shape == (E,) and course.progress.next_checkpoint_state.shape == (E,)
    assert course.rng.seeds_warp.numpy().tolist() == list(range(3, 3 + E))
    course.reset(np.ones(E, bool))
    snap = track.clone()
    mask = np.zeros(E, np.int32)
    mask[2] = 1
    course.regenerate(mask)
    for e in range(E):
        n = track.N_max
        same = np.array_equal(
            snap.center.numpy()[e * n : (e + 1) * n], track.center.numpy()[e * n : (e + 1) * n], equal_nan=True
        )
        assert same == (e != 2)
    # A standalone segments checker on the course's track sees its regenerations.
    own = CollisionChecker(track, 1)
    course.generate(seeds=np.arange(100, 100 + E, dtype=np.int32))
    assert course.rng.seeds_warp.numpy().tolist() == list(range(100, 100 + E))
    pos[:] = np.stack([track.points(e)[0] for e in range(E)])
    course.step()
    got = own.query(pos, rot, he)
    assert np.array_equal(got.distance.numpy(), r.contacts.distance.numpy(), equal_nan=True)
    assert (got.oob.numpy()[track.valid.numpy().astype(bool)] == 0).all()


def test_track_course_with_sdf_heightfield_and_localizer():
    cfg = track_config(collision="sdf", sdf_resolution=32, heightfield_resolution=16, localize=True, localize_window=4)
    course = Course(cfg)
    course.generate()
    pos, rot, he = state(E)
    course.bind(pos, rot, he)
    r = course.step()
    assert r.frame is not None and r.frame.s.shape == (E,)
    assert course.collision.sdf.phi.shape == (E * 32 * 32,)
    assert course.heightfield.height.shape == (E * 16 * 16,) and course.heightfield.res == 16
    assert course.localizer.last_segment.shape == (E,)


def test_gates_course_posts_and_frames():
    gcfg = track_gen.GateGenConfig(num_envs=E, gate_width=0.1)
    course = Course(CourseConfig(mode="gates", gen=gcfg, seeds=1, post_radius=0.02))
    gates = course.generate()
    assert isinstance(gates, track_gen.GateSequence) and course.course_line.track.count.shape == (E,)
    pos, rot, he = state(E)
    course.bind(pos, rot, he)
    e = int(np.argmax(gates.valid.numpy()))
    pos[e] = gates.points(e, "left")[0]  # on a post
    r = course.step()
    assert isinstance(r.contacts, DiscContact) and r.contacts.hit.numpy()[e] == 1 and r.frame is not None
    frames = Course(
        CourseConfig(
            mode="gates", gen=gcfg, frame_collision=True, frame_thickness=0.01, frame_depth=0.01, agent_radius=0.01
        )
    )
    frames.generate()
    frames.bind(np.zeros((E, 3), np.float32))
    assert type(frames.step().contacts).__name__ == "FrameContact"


def test_course_config_rules():
    cfg = track_config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.mode = "gates"
    with pytest.raises(ValueError, match="mode"):
        track_config(mode="boat")
    with pytest.raises(ValueError, match="GateGenConfig"):
        CourseConfig(mode="gates", gen=track_gen.TrackGenConfig(num_envs=E))
    with pytest.raises(ValueError, match="gate_width"):
        CourseConfig(mode="gates", gen=track_gen.GateGenConfig(num_envs=E))
    with pytest.raises(ValueError, match="checkpoint_spacing"):
        track_config(checkpoint_spacing=None)
    with pytest.raises(ValueError, match="post_radius"):
        track_config(post_radius=0.1)  # a gates option in track mode
    with pytest.raises(ValueError, match="sdf_resolution"):
        track_config(collision="segments", sdf_resolution=64)  # an sdf option without the sdf backend
    with pytest.raises(ValueError, match="seeds"):
        track_config(seeds=np.zeros(E + 1, np.int32))

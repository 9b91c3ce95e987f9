"""The Course from Python: agent-state arrays bound once, step() and regenerate() results as arrays."""

import numpy as np
import pytest

import trackgen

E = 8


def make_course(**extra):
    fields = dict(gen={"num_envs": E}, seed=4, checkpoint_spacing=0.3, collision="segments", localize=True)
    fields.update(extra)
    return trackgen.Course(**fields)


def test_track_mode_step_reads_the_state_arrays_in_place():
    course = make_course()
    track = course.track
    assert course.position.shape == (E, 3) and course.orientation.shape == (E, 4)
    assert course.half_extents.shape == (E, 2)
    assert np.array_equal(course.orientation, np.tile([0, 0, 0, 1], (E, 1)))
    course.half_extents[:] = (0.02, 0.01)
    starts = np.stack([track.points(e)[0] for e in range(E)])
    course.position[:] = starts                       # every agent on its centre line
    r = course.step()
    assert r is course.result and r.posts is None and r.frames is None
    valid = track.valid.astype(bool)
    assert valid.any()
    assert (r.contacts.oob[valid] == 0).all()
    assert np.allclose(r.frame.n[valid], 0, atol=1e-4) and np.allclose(r.frame.s[valid], 0, atol=1e-3)
    oob = r.contacts.oob
    course.position[:, 0] += 10.0                     # far off every track
    course.step()
    assert (oob[valid] == 1).all()                    # the same array, rewritten by step()


def test_regenerate_changes_only_the_masked_envs():
    course = make_course()
    before = course.track.clone()
    mask = np.zeros(E, bool)
    mask[1] = True
    course.regenerate(mask, advance=True)
    n = before.n_max
    for e in range(E):
        same = np.array_equal(course.track.center[e * n : (e + 1) * n], before.center[e * n : (e + 1) * n], equal_nan=True)
        assert same == (e != 1), e
    # The Course's tracks are the generator's: a TrackGenerator at the same seeds gives the same bits.
    gen = trackgen.TrackGenerator(num_envs=E, seed=4)
    gen.generate(mask, advance=True)
    assert np.array_equal(gen.track.center, course.track.center, equal_nan=True)
    with pytest.raises(ValueError, match="mask must have shape"):
        course.regenerate(np.zeros(E + 1, np.int32))


def test_gates_mode_exposes_the_gates_and_the_posts():
    course = trackgen.Course(mode="gates", gate_gen={"num_envs": E, "gate_width": 0.1}, post_radius=0.02, seed=1)
    g = course.gates
    assert g.position.shape[1] == 3 and g.position.shape[0] % E == 0 and g.count.shape == (E,)
    e = int(np.argmax(g.valid))
    first = g.position[e * (g.position.shape[0] // E)]
    course.position[e] = first
    course.half_extents[:] = (0.01, 0.01)
    r = course.step()
    assert r.posts is not None and r.posts.hit.shape == (E,) and r.frame is not None
    assert course.track.center.shape[1] == 3  # the course line through the gates


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(gen={"num_envs": E}, checkpoint_spacing=None), "checkpoint_spacing"),
        (dict(gen={"num_envs": E}, checkpoint_spacing=0.3, collision="boxes"), "collision"),
        (dict(gen={"num_envs": E}, checkpoint_spacing=0.3, no_such=1), 'CourseConfig: unknown key "no_such"'),
        (dict(gen={"num_envs": 0}, checkpoint_spacing=0.3), "num_envs"),
    ],
)
def test_bad_course_config_raises_value_error_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        trackgen.Course(**fields)

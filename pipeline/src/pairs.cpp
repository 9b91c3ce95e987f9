// The validity tests over pairs of nearby points (check_near_pairs in
// stages.hpp): the separation half of the thickness test and, with
// validity_border_check, the loop check (simple centre line and borders, no
// folded border, border clearance from the centre line).
//
// One team per env (envs already invalid are skipped), in phases separated by
// team barriers:
//  1. the longest centre segment l_max sets the reach R within which a pair
//     can fail a test: 2 (hw + l_max) + delta with the loop check, 2
//     min_thickness without; the grid's cells have side 1.005 R, from the
//     corner of the centre points' bounding box (max and min: exact in any
//     order);
//  2. counting sort of the centre points by hashed cell into cell_start /
//     cell_items (integer atomics: the order inside a cell may vary between
//     runs on a device, the set of points in it does not);
//  3. thread per point i: the fold test of its border segments, then the
//     pairs (i, j) with |c_i - c_j| <= R, each visited once: j from i's cell
//     (j >= i) and from the four cells after it.
// On host spaces without the loop check (a team is one thread, and only the
// thickness test runs) the grid costs more than it saves at the point counts
// of a track: the thread tests every pair farther apart than the band
// directly, one vector pass over j > i per point, with the same float
// expression per pair (length_sq(c_i - c_j) and length_sq(c_j - c_i) are the
// same float), so the env's result is the same.
// Every test is a pure function of its points and the env's result only asks
// whether any failed: nothing depends on team size or scheduling.
//
// Why the neighbouring cells suffice: a border point lies within hw of its
// centre point, so every point of border segment i lies within hw + l_i of
// c_i. Two segments (centre or border) closer than delta, or a border point
// closer than hw to centre segment j, therefore have |c_i - c_j| < R, so c_i and
// c_j lie in the same or neighbouring cells (hashing can only add pairs).
//
// The thickness test is min(rad_min, sep_min / 2) >= min_thickness over the
// pairs farther apart than the band; its radius half stays in the inflation
// kernel, and sep_min / 2 >= min_thickness holds exactly when every non-band
// pair within R has 0.5 sqrt(|c_i - c_j|^2) >= min_thickness (R > 2
// min_thickness), the same float expression the full scan used.
#include "pipeline_detail.hpp"

#include <string>

namespace trackgen {
namespace {

/// Cell coordinate of v >= 0 (a coordinate less the grid's corner, divided by
/// the cell side): its integer part, clamped so that it fits an int (clamping
/// keeps neighbours neighbours).
KOKKOS_INLINE_FUNCTION int cell_coord(float v) { return static_cast<int>(kmath::min(v, 1048576.0f)); }

/// Slot of cell (x, y) in a table of `slots` slots (a power of two).
KOKKOS_INLINE_FUNCTION int cell_slot(int x, int y, int slots) {
  const unsigned h = static_cast<unsigned>(x) * 73856093u ^ static_cast<unsigned>(y) * 19349663u;
  return static_cast<int>(h & static_cast<unsigned>(slots - 1));
}

/// Whether q is closer than m (> 0) to the segment [a, b]; no division: with
/// t = (q - a).(b - a), the distance is |q - a| for t <= 0, |q - b| for
/// t >= |b - a|^2, else |(b - a) x (q - a)| / |b - a|.
KOKKOS_INLINE_FUNCTION bool closer_than(Vec2f q, Vec2f a, Vec2f b, float m) {
  const Vec2f ab = b - a, aq = q - a;
  const float t = dot(aq, ab), l2 = length_sq(ab), m2 = m * m;
  if (t <= 0.0f) return length_sq(aq) < m2;
  if (t >= l2) return length_sq(q - b) < m2;
  const float c = cross(ab, aq);
  return c * c < m2 * l2;
}

/// Whether segments [a0, a1] and [b0, b1] come closer than `delta`: a proper
/// crossing (strict signs) or an endpoint closer than delta to the other
/// segment. Bounding boxes delta or more apart are rejected first.
KOKKOS_INLINE_FUNCTION bool segments_near(Vec2f a0, Vec2f a1, Vec2f b0, Vec2f b1, float delta) {
  if (kmath::min(a0.x, a1.x) - delta >= kmath::max(b0.x, b1.x) ||
      kmath::min(b0.x, b1.x) - delta >= kmath::max(a0.x, a1.x) ||
      kmath::min(a0.y, a1.y) - delta >= kmath::max(b0.y, b1.y) ||
      kmath::min(b0.y, b1.y) - delta >= kmath::max(a0.y, a1.y)) {
    return false;
  }
  const float d1 = geom::orient(b0, b1, a0), d2 = geom::orient(b0, b1, a1);
  const float d3 = geom::orient(a0, a1, b0), d4 = geom::orient(a0, a1, b1);
  if (((d1 > 0.0f && d2 < 0.0f) || (d1 < 0.0f && d2 > 0.0f)) && ((d3 > 0.0f && d4 < 0.0f) || (d3 < 0.0f && d4 > 0.0f))) {
    return true;
  }
  return closer_than(a0, b0, b1, delta) || closer_than(a1, b0, b1, delta) || closer_than(b0, a0, a1, delta) ||
         closer_than(b1, a0, a1, delta);
}

/// Sagitta of a chord of length l on a circle of curvature k: the largest
/// distance between the chord and its arc (l / 2 once k l / 2 >= 1).
KOKKOS_INLINE_FUNCTION float sagitta(float l, float k) {
  const float h = 0.5f * l, x = k * h;
  return x >= 1.0f ? h : h * x / (1.0f + kmath::sqrt(1.0f - x * x));
}

KOKKOS_INLINE_FUNCTION Vec2f xy(Vec3f p) { return {p.x, p.y}; }

/// Whether two centre points at squared distance d2 are closer than the
/// thickness test allows (the separation half of the test, band aside):
/// closer than sep2, and half their distance below min_thickness.
KOKKOS_INLINE_FUNCTION bool thin_distance(float d2, float sep2, float min_thickness) {
  return d2 < sep2 && 0.5f * kmath::sqrt(d2) < min_thickness;
}

/// Whether a pair of an env's `cnt` centre points c farther apart than the
/// band fails the thickness test (thin_distance), over every such pair (i, j > i):
/// band < j - i < cnt - band. A host space's thread per env, without the loop
/// check; the j loops vectorize, compiled per instruction-set level
/// (TRACKGEN_HOST_CLONES: the same answer on each, every pair's distance the
/// same float). A row is first tested against sep2 alone (no square root):
/// thin_distance holds only below it, and few rows have a pair that close.
TRACKGEN_HOST_CLONES bool thin_pairs(const Vec2f* c, int cnt, int band, float sep2, float min_thickness) {
  for (int i = 0; i < cnt; ++i) {
    const Vec2f ci = c[i];
    const int end = kmath::min(cnt, i + cnt - band);
    unsigned near = 0u;
    for (int j = i + band + 1; j < end; ++j) near |= length_sq(ci - c[j]) < sep2 ? 1u : 0u;
    if (near == 0u) continue;
    unsigned hit = 0u;
    for (int j = i + band + 1; j < end; ++j) hit |= thin_distance(length_sq(ci - c[j]), sep2, min_thickness) ? 1u : 0u;
    if (hit != 0u) return true;
  }
  return false;
}

template <class Space>
struct NearPairsKernel {
  DView<Vec3f, Space> center, outer, inner;
  DView<Vec2f, Space> ctr2;  // the centre line in plan view (the xy of `center`)
  DView<int, Space> count, valid, env_band, invalid_reason, truncated;
  DView<float, Space> seg, kappa;
  DView<int, Space> cell_start, cell_items;
  int n_max = 0;
  int table = 0;
  float hw = 0;
  float min_thickness = 0;  // (1 - relax_tol) hw: the thickness line and the border clearance
  float delta = 0;          // closest approach of non-adjacent segments of a loop
  bool loops = false;       // validity_border_check

  /// One env's data and grid.
  struct Env {
    const Vec3f* c;      // centre line
    const Vec3f* o;      // outer border
    const Vec3f* n;      // inner border
    const float* len;    // centre segment lengths
    const float* kappa;  // Menger curvatures
    int cnt;
    int band;      // thickness band
    int slots;     // hashed cells: the smallest power of two >= cnt
    Vec2f origin;  // grid corner: the smallest centre coordinates
    float inv_cell;
    float reach2;   // squared centre-point distance beyond which no test can fail
    float sep2;     // ... beyond which the thickness test cannot fail: (2.001 min_thickness)^2
    float near2;    // ... beyond which no clearance test can fail: (1.001 hw + min_thickness + l_max)^2
    float centre2;  // ... beyond which centre segments cannot come within delta: (2 l_max + delta)^2
    float clear2;   // (min_thickness + l_max)^2: a border point this far from c_j is clear of segment j
  };

  /// Segment i of the three loops.
  struct Seg {
    Vec2f c0, c1, o0, o1, n0, n1;
  };

  KOKKOS_FUNCTION Seg segment(const Env& v, int i) const {
    const int i1 = i + 1 < v.cnt ? i + 1 : 0;
    return {xy(v.c[i]), xy(v.c[i1]), xy(v.o[i]), xy(v.o[i1]), xy(v.n[i]), xy(v.n[i1])};
  }

  KOKKOS_FUNCTION int cell_x(const Env& v, Vec2f p) const { return cell_coord((p.x - v.origin.x) * v.inv_cell); }
  KOKKOS_FUNCTION int cell_y(const Env& v, Vec2f p) const { return cell_coord((p.y - v.origin.y) * v.inv_cell); }
  KOKKOS_FUNCTION int slot_of(const Env& v, Vec2f p) const { return cell_slot(cell_x(v, p), cell_y(v, p), v.slots); }

  /// Whether border point b comes closer than min_thickness to centre segment j
  /// once the chord's sagitta (on the circle of the larger Menger curvature of
  /// its two ends) is added to its distance.
  KOKKOS_FUNCTION bool too_close(const Env& v, Vec2f b, int j, const Seg& sj) const {
    if (length_sq(b - sj.c0) >= v.clear2 || !closer_than(b, sj.c0, sj.c1, min_thickness)) return false;
    const float k = kmath::max(v.kappa[j], v.kappa[j + 1 < v.cnt ? j + 1 : 0]);
    const float m = min_thickness - sagitta(v.len[j], k);
    return m > 0.0f && closer_than(b, sj.c0, sj.c1, m);
  }

  /// Whether the pair (i, j) fails; d2 = |c_i - c_j|^2 <= reach^2 gates the
  /// tests that cannot fail farther. Thickness: the points are farther apart
  /// than the band and closer than 2 min_thickness. Loop check: a border point
  /// of either too close to the other's centre segment (i == j: to its own),
  /// or, for non-adjacent segments, two segments of one loop closer than delta.
  KOKKOS_FUNCTION std::int32_t pair_fails(const Env& v, int i, const Seg& si, int j, float d2) const {
    const int circ = geom::circ_dist(i, j, v.cnt);
    const std::int32_t sep = circ > v.band && thin_distance(d2, v.sep2, min_thickness) ? InvalidReason::thickness : 0;
    return sep | (loops && loop_fails(v, i, si, j, d2, circ) ? InvalidReason::crossing : 0);
  }

  /// The loop-check half of pair_fails.
  KOKKOS_FUNCTION bool loop_fails(const Env& v, int i, const Seg& si, int j, float d2, int circ) const {
    const Seg sj = segment(v, j);
    if (d2 <= v.near2) {
      if (too_close(v, si.o0, j, sj) || too_close(v, si.n0, j, sj)) return true;
      if (i == j) return false;
      if (too_close(v, sj.o0, i, si) || too_close(v, sj.n0, i, si)) return true;
    }
    if (circ <= 1) return false;
    return (d2 <= v.centre2 && segments_near(si.c0, si.c1, sj.c0, sj.c1, delta)) ||
           segments_near(si.o0, si.o1, sj.o0, sj.o1, delta) || segments_near(si.n0, si.n1, sj.n0, sj.n1, delta);
  }

  /// 1 if a test of point i fails: with the loop check the fold test of its
  /// border segments (each must advance along centre segment i by more than
  /// 1e-3 of its length), then the pairs (i, j) within reach, j from i's cell
  /// (j >= i) and from the cells (1, -1), (1, 0), (1, 1), (0, 1) after it.
  KOKKOS_FUNCTION std::int32_t point_fails(const Env& v, const int* start, const int* items, int i) const {
    const Seg si = segment(v, i);
    const std::int32_t all = InvalidReason::thickness | (loops ? InvalidReason::crossing : 0);
    std::int32_t fails = 0;
    if (loops) {
      const Vec2f di = si.c1 - si.c0;
      const float advance = 1e-3f * length_sq(di);
      if (dot(si.o1 - si.o0, di) <= advance || dot(si.n1 - si.n0, di) <= advance) fails = InvalidReason::crossing;
    }
    const int cx = cell_x(v, si.c0), cy = cell_y(v, si.c0);
    const Vec3f* const centre = v.c;
    const float reach2 = v.reach2;
    for (int c = 0; c < 5; ++c) {
      const int s = cell_slot(cx + (c == 0 || c == 4 ? 0 : 1), cy + (c == 0 ? 0 : (c == 4 ? 1 : c - 2)), v.slots);
      const int k_end = start[s + 1];
      for (int k = start[s]; k < k_end; ++k) {
        const int j = items[k];
        const float d2 = length_sq(si.c0 - xy(centre[j]));  // the thickness test's expression (thin_pairs)
        if (d2 <= reach2 && (c > 0 || j >= i)) fails |= pair_fails(v, i, si, j, d2);
        if (fails == all) return fails;  // every bit found: the set does not depend on the visiting order
      }
    }
    return fails;
  }

  /// Marks env e invalid for the failed tests `fails` (nothing when 0).
  KOKKOS_FUNCTION void mark(int e, int cnt, std::int32_t fails) const {
    if (fails == 0) return;
    valid(e) = 0;
    invalid_reason(e) |= fails | (truncated(e) != 0 ? InvalidReason::truncated : 0) |
                         (cnt < 3 ? InvalidReason::too_few_points : 0);
  }

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    if (valid(e) == 0) return;  // the same for every thread of the team
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    Env v;
    v.c = center.data() + base;
    v.o = outer.data() + base;
    v.n = inner.data() + base;
    v.len = seg.data() + base;
    v.kappa = kappa.data() + base;
    v.cnt = kmath::min(count(e), n_max);
    v.band = kmath::max(env_band(e), 0);
    v.sep2 = (2.001f * min_thickness) * (2.001f * min_thickness);
    if constexpr (detail::is_host_space<Space>()) {
      if (!loops) {
        mark(e, v.cnt,
             thin_pairs(ctr2.data() + base, v.cnt, v.band, v.sep2, min_thickness) ? InvalidReason::thickness : 0);
        return;
      }
    }
    v.slots = 1;
    while (v.slots < v.cnt) v.slots *= 2;
    int* const start = cell_start.data() + static_cast<std::size_t>(e) * (table + 1);
    int* const items = cell_items.data() + base;

    // --- 1: reach and cell side from the longest centre segment
    float l_max = 0.0f;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, v.cnt), [&](const int i, float& m) { m = kmath::max(m, v.len[i]); },
        Kokkos::Max<float>(l_max));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, v.cnt), [&](const int i, float& m) { m = kmath::min(m, v.c[i].x); },
        Kokkos::Min<float>(v.origin.x));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, v.cnt), [&](const int i, float& m) { m = kmath::min(m, v.c[i].y); },
        Kokkos::Min<float>(v.origin.y));
    const float reach = 1.005f * (loops ? 2.0f * (hw + l_max) + delta : 2.0f * min_thickness);
    v.inv_cell = 1.0f / (1.005f * reach);
    v.reach2 = reach * reach;
    v.near2 = (1.001f * hw + min_thickness + l_max) * (1.001f * hw + min_thickness + l_max);
    v.centre2 = (2.0f * l_max + delta) * (2.0f * l_max + delta);
    v.clear2 = (min_thickness + l_max) * (min_thickness + l_max);

    // --- 2: the grid
    sort_by_cell(team, v, start, items);

    // --- 3: the tests
    std::int32_t fails = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, v.cnt),
        [&](const int i, std::int32_t& bits) { bits |= point_fails(v, start, items, i); },
        Kokkos::BOr<std::int32_t>(fails));
    Kokkos::single(Kokkos::PerTeam(team), [&]() { mark(e, v.cnt, fails); });
  }

  /// Counting sort of the env's centre points by hashed cell: afterwards slot
  /// s holds items[start[s] .. start[s + 1]).
  KOKKOS_FUNCTION void sort_by_cell(const detail::TeamMember<Space>& team, const Env& v, int* start,
                                    int* items) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, v.slots + 1),
                         [&](const int s) { start[s] = s == v.slots ? v.cnt : 0; });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, v.cnt),
                         [&](const int i) { Kokkos::atomic_add(&start[slot_of(v, xy(v.c[i]))], 1); });
    team.team_barrier();
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, v.slots), [&](const int s, int& sum, const bool final) {
      sum += start[s];
      if (final) start[s] = sum;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, v.cnt), [&](const int i) {
      items[Kokkos::atomic_fetch_sub(&start[slot_of(v, xy(v.c[i]))], 1) - 1] = i;
    });
    team.team_barrier();
  }
};

}  // namespace

template <class Space>
void check_near_pairs(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                      Track<typename Space::memory_space>& track) {
  detail::check_inputs(ctx.space(), buffers, config, track, "trackgen::check_near_pairs");
  const PipelineConstants c = pipeline_constants(config);
  NearPairsKernel<Space> k;
  k.center = track.center;
  k.ctr2 = buffers.ctr2;
  k.outer = track.outer;
  k.inner = track.inner;
  k.count = track.count;
  k.valid = track.valid;
  k.invalid_reason = track.invalid_reason;
  k.truncated = track.truncated;
  k.env_band = buffers.env_band;
  k.seg = buffers.seg;
  k.kappa = buffers.kappa;
  k.cell_start = buffers.cell_start;
  k.cell_items = buffers.cell_items;
  k.n_max = buffers.n_max();
  k.table = buffers.cell_table();
  k.hw = c.half_width;
  k.min_thickness = c.min_thickness;
  k.delta = 1e-3f * c.half_width;
  k.loops = config.validity_border_check;
  ctx.for_each_team("TrackGen::pipeline::inflate::near_pairs", buffers.num_envs(), detail::env_team_size<Space>(), k);
}

#define TRACKGEN_INSTANTIATE_NEAR_PAIRS(S)                                                                  \
  template void check_near_pairs<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,   \
                                    Track<typename S::memory_space>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_NEAR_PAIRS)

}  // namespace trackgen

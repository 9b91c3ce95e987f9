// The `hull` centerline generator (docs/algorithms.md#hull): random grid corners
// (the bezier sampler with its own salts), angle sort (clockwise), displaced edge
// midpoints, a closed Catmull-Rom spline through the 2m augmented points, arc
// resample to N, and linear fallbacks for envs whose spline crosses itself.
//
// Why the fallback loops are simple. Let C be the centroid of the m corners and
// sort them by angle around C (x-first atan2, as here).
//  1. No angular gap between consecutive sorted corners exceeds pi: otherwise all
//     corners lie in an open half-plane bounded by a line through C (or on C),
//     and so would their centroid, which is C itself, a contradiction.
//  2. A segment that does not pass through C sweeps, as seen from C, exactly
//     the angular interval between its end points (monotonically, less than
//     pi). A closed polygon whose vertices run in monotone angular order around
//     C, one full turn in all, with every gap < pi, therefore meets every ray
//     from C in exactly one point: it is star-shaped about C, hence simple. The
//     limit cases (a gap of exactly pi, two vertices on one ray, a vertex on C)
//     give a weakly simple polygon whose touching pieces are collinear, which
//     XCOUNT's proper-crossing predicate (strict sides with a tolerance) never
//     counts. So the sorted corner polygon (fallback 2) is simple.
//  3. The augmented loop of fallback 1 inserts, between v_i and v_{i+1}, the
//     midpoint M moved along the ray from C through M by amt, |amt| <
//     hull_displacement * |M - C|. For hull_displacement < 1 the moved point
//     stays on that ray, whose angle lies between those of v_i and v_{i+1}: the
//     augmented loop is in monotone angular order too and simple by 2. (The
//     caveat of docs/differences.md#generators bites only from
//     hull_displacement >= 1 on, where a midpoint can be pushed through C;
//     fallback 2 covers that.)
//  4. ARC puts the N output points on such a boundary in boundary order, hence
//     in monotone angular order around C with one full turn. The output loop
//     is therefore star-shaped about C again, by 2., as long as consecutive
//     output points are less than pi apart seen from C: a stretch of boundary of
//     one output spacing h subtends pi only if it passes within about h/2 of C.
//  5. In float, the centroid and the atan2 keys are rounded: the sort can only
//     misorder corners whose angles agree to a few ulps, a kink far below
//     XCOUNT's tolerance (1e-3 * |segment|^2).
// Steps 4 and 5 are arguments about rounding and an unlikely geometry, not
// proofs, so the output of fallback-2 envs is counted once more
// (residual_crossing) instead of being trusted.
#include <trackgen/generators/detail/hull.hpp>

namespace trackgen::detail {

HullParams HullParams::from_config(const TrackGenConfig& c) {
  HullParams p;
  static_cast<PointFamilyParams&>(p) = PointFamilyParams::from_config(c);
  p.scale = c.scale;
  p.displacement = c.hull_displacement;
  return p;
}

template <class Space>
void hull_corners(const LaunchContext<Space>& ctx, const std::string& label, const HullParams& p,
                  const DView<std::int32_t, Space>& seeds, const DView<std::int32_t, Space>& count,
                  const DView<Vec2f, Space>& raw, const DView<std::int32_t, Space>& used) {
  const int P = p.num_slots, min_num = p.min_num_points, nc = p.num_cells;
  const float cell = p.cell_size, scale = p.scale;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const std::int32_t seed = seeds(e);
        std::uint32_t st_count = stream(seed, salt::hull_count);
        const int m = draw_corner_count(st_count, min_num, P);
        std::uint32_t st = stream(seed, salt::hull_corners);
        const std::size_t base = e * static_cast<std::size_t>(P);
        sample_grid_corners(st, P, nc, cell, scale, used.data() + base, raw.data() + base);
        count(e) = kmath::clamp(m, 1, P);
      });
}

/// Step 4, thread per env: centroid C of the m sorted corners (double sums in
/// sorted order), then per edge i < m one draw from seed * 3083 + 1:
/// M = (v0 + v1) / 2, r = |M - C|, dir = (M - C) / max(r, 1e-8),
/// amt = (2u - 1) * displacement * r; aug[2i] = v0, aug[2i+1] = M + amt * dir.
/// Slots >= 2m NaN; aug_count = 2m.
template <class Space>
void hull_displace(const LaunchContext<Space>& ctx, const std::string& label, const HullParams& p,
                   const DView<std::int32_t, Space>& seeds, const DView<std::int32_t, Space>& count,
                   const DView<Vec2f, Space>& sorted, const DView<Vec2f, Space>& aug,
                   const DView<std::int32_t, Space>& aug_count) {
  const int P = p.num_slots, A = p.aug_stride();
  const float hd = p.displacement;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const int m = kmath::clamp(count(e), 1, P);
        const Vec2f* s = sorted.data() + e * P;
        Vec2f* a = aug.data() + e * A;
        double sx = 0.0, sy = 0.0;
        for (int i = 0; i < m; ++i) {
          sx += static_cast<double>(s[i].x);
          sy += static_cast<double>(s[i].y);
        }
        const Vec2f c{static_cast<float>(sx / m), static_cast<float>(sy / m)};
        std::uint32_t st = stream(seeds(e), salt::hull_displacement);
        for (int i = 0; i < m; ++i) {
          const Vec2f v0 = s[i], v1 = s[i + 1 < m ? i + 1 : 0];
          const Vec2f mid = (v0 + v1) / 2.0f;
          const float r = length(mid - c);
          const Vec2f dir = (mid - c) / kmath::max(r, 1e-8f);
          const float amt = (2.0f * randf(st) - 1.0f) * hd * r;
          a[2 * i] = v0;
          a[2 * i + 1] = mid + amt * dir;
        }
        for (int i = 2 * m; i < A; ++i) a[i] = nan2();
        aug_count(e) = 2 * m;
      });
}

template <class Space>
HullGenerator<Space>::HullGenerator(const Space& space, const TrackGenConfig& config)
    : Base("hull", HullParams::from_config(config)) {
  allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, this->name_);
}

template <class Space>
template <class F>
void HullGenerator<Space>::scratch_plan(const HullParams& p, F&& f) {
  const std::size_t E = p.num_envs, P = p.num_slots, A = p.aug_stride(), D = p.dense_stride();
  f("count", TRACKGEN_MEMBER(count_), E);
  f("raw_corners", TRACKGEN_MEMBER(raw_), E * P);
  f("used", TRACKGEN_MEMBER(used_), E * P);
  f("keys", TRACKGEN_MEMBER(keys_), E * P);
  f("sorted", TRACKGEN_MEMBER(sorted_), E * P);
  f("aug", TRACKGEN_MEMBER(aug_), E * A);
  f("aug_count", TRACKGEN_MEMBER(aug_count_), E);
  f("dense", TRACKGEN_MEMBER(dense_), E * D);
  f("crossers", TRACKGEN_MEMBER(crossers_), E);
  f("fallback_crossing", TRACKGEN_MEMBER(fallback_crossing_), E);
  f("residual_crossing", TRACKGEN_MEMBER(residual_crossing_), E);
  f("arc", TRACKGEN_MEMBER(arc_), E, D);
}

template <class Space>
void HullGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                    const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  const std::string& x = prefix_;
  const int P = p_.num_slots, A = p_.aug_stride(), N = p_.num_points, npseg = p_.npseg;
  const IntView all;  // extent 0: every env
  const ControlLoops<Space> augmented{aug_, A, aug_count_}, corners{sorted_, P, count_};
  hull_corners(ctx, x + "corners", p_, seeds, count_, raw_, used_);
  sort_by_angle(ctx, x + "sort", count_, raw_, keys_, sorted_, P);
  hull_displace(ctx, x + "displace", p_, seeds, count_, sorted_, aug_, aug_count_);
  // Step 5: closed uniform Catmull-Rom over the 2m augmented points, u = s/(npseg-1).
  const DenseSampling spline{ClosedCurve::catmull_rom, A, npseg, true}, linear{ClosedCurve::linear, A, npseg, true};
  closed_curve_dense(ctx, x + "spline", spline, augmented, all, dense_);
  arc_resample(ctx, x, dense_, out_centerline, N, arc_);
  xcount(ctx, x, out_centerline, N, N, crossers_);
  // Fallback 1 (step 7 of docs/algorithms.md#hull): the linear augmented loop, crossers only.
  closed_curve_dense(ctx, x + "fallback", linear, augmented, crossers_, dense_);
  arc_resample_selected(ctx, x, dense_, out_centerline, N, crossers_, arc_);
  xcount_selected(ctx, x, out_centerline, N, N, crossers_, fallback_crossing_);
  // Fallback 2: the sorted corner polygon (simple, see the top of this file),
  // for the envs whose fallback 1 still crosses.
  closed_curve_dense(ctx, x + "corner_polygon", linear, corners, fallback_crossing_, dense_);
  arc_resample_selected(ctx, x, dense_, out_centerline, N, fallback_crossing_, arc_);
  xcount_selected(ctx, x, out_centerline, N, N, fallback_crossing_, residual_crossing_);
  fill_valid(ctx, x, out_valid);
}

template <class Space>
std::size_t HullGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const HullParams p = HullParams::from_config(config);
  return plan_bytes<HullGenerator>([&](auto&& f) { scratch_plan(p, f); });
}

template <class Space>
std::size_t HullGenerator<Space>::device_bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
}

#define TRACKGEN_INSTANTIATE_HULL(S) \
  template class HullGenerator<S>; \
  template void hull_corners<S>(const LaunchContext<S>&, const std::string&, const HullParams&, const DView<std::int32_t, S>&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_HULL)

}  // namespace trackgen::detail

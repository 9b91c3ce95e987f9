// The `bezier` centerline generator (docs/algorithms.md#bezier): random grid corners,
// angle sort (clockwise), cubic Bezier segments with clamped handles, arc
// resample to N, and a straight-polygon fallback for envs whose curve crosses
// itself.
#include <trackgen/generators/detail/bezier.hpp>

namespace trackgen::detail {

BezierParams BezierParams::from_config(const TrackGenConfig& c) {
  BezierParams p;
  static_cast<PointFamilyParams&>(p) = PointFamilyParams::from_config(c);
  p.edgy = c.edgy;
  p.styled = c.style_sampling;
  // The ranges apply only with style sampling; a None range is (v, v).
  const FloatRange rad{c.rad, c.rad}, scale{c.scale, c.scale}, clamp{c.handle_clamp_frac, c.handle_clamp_frac};
  p.rad = p.styled ? c.rad_range.value_or(rad) : rad;
  p.scale = p.styled ? c.scale_range.value_or(scale) : scale;
  p.clamp = p.styled ? c.handle_clamp_frac_range.value_or(clamp) : clamp;
  return p;
}

// Kernels: free functions (never members capturing `this`), each launching one
// kernel through the context on local copies of the Views.

/// Step 0, thread per env: rad, scale, clamp drawn in this order from seed * 2741.
template <class Space>
void bezier_style(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                  const DView<std::int32_t, Space>& seeds, const DView<float, Space>& rad,
                  const DView<float, Space>& scale, const DView<float, Space>& clamp) {
  const float r0 = p.rad[0], r1 = p.rad[1], s0 = p.scale[0], s1 = p.scale[1], c0 = p.clamp[0], c1 = p.clamp[1];
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        std::uint32_t st = stream(seeds(e), salt::bezier_style);
        rad(e) = r0 + randf(st) * (r1 - r0);
        scale(e) = s0 + randf(st) * (s1 - s0);
        clamp(e) = c0 + randf(st) * (c1 - c0);
      });
}

template <class Space>
void bezier_corners(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                    const DView<std::int32_t, Space>& seeds, const DView<float, Space>& style_scale,
                    const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& raw,
                    const DView<std::int32_t, Space>& used) {
  const int P = p.num_slots, min_num = p.min_num_points, nc = p.num_cells;
  const float cell = p.cell_size, const_scale = p.scale[0];
  const bool styled = p.styled;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const std::int32_t seed = seeds(e);
        std::uint32_t st_count = stream(seed, salt::bezier_count);
        const int m = draw_corner_count(st_count, min_num, P);
        std::uint32_t st = stream(seed, salt::bezier_corners);
        const float scale = styled ? style_scale(e) : const_scale;
        const std::size_t base = e * static_cast<std::size_t>(P);
        sample_grid_corners(st, P, nc, cell, scale, used.data() + base, raw.data() + base);
        count(e) = kmath::clamp(m, 1, P);
      });
}

/// Step 4, thread per corner slot: tangent blend and shorter incident edge, with
/// neighbours mod m; slots >= m NaN.
template <class Space>
void bezier_tangents(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                     const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& corners,
                     const DView<Vec2f, Space>& tangents, const DView<float, Space>& shorter_edge) {
  const int P = p.num_slots;
  const float edgy = p.edgy;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs) * P, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / P;
        const int i = static_cast<int>(t % P);
        const int m = kmath::clamp(count(e), 1, P);
        if (i >= m) {
          tangents(t) = nan2();
          shorter_edge(t) = nanf();
          return;
        }
        const Vec2f* c = corners.data() + e * P;
        const Vec2f ci = c[i], cn = c[(i + 1) % m], cp = c[(i - 1 + m) % m];
        const Vec2f u_out = geom::safe_norm2(cn - ci);
        const Vec2f u_in = geom::safe_norm2(ci - cp);
        const float pb = kmath::atan(edgy) / geom::pi_f + 0.5f;
        tangents(t) = geom::safe_norm2(pb * u_out + (1.0f - pb) * u_in);
        shorter_edge(t) = kmath::min(length(cn - ci), length(ci - cp));
      });
}

/// Step 5, thread per dense sample: cubic segment i, sample s, u = s/(npseg-1).
template <class Space>
void bezier_assemble(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                     const DView<float, Space>& style_rad, const DView<float, Space>& style_clamp,
                     const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& corners,
                     const DView<Vec2f, Space>& tangents, const DView<float, Space>& shorter_edge,
                     const DView<Vec2f, Space>& dense) {
  const int P = p.num_slots, npseg = p.npseg, M = p.dense_stride();
  const float const_rad = p.rad[0], const_clamp = p.clamp[0];
  const bool styled = p.styled;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs) * M, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / M;
        const int r = static_cast<int>(t % M);
        const int i = r / npseg, s = r % npseg;
        const int m = kmath::clamp(count(e), 1, P);
        if (i >= m) {
          dense(t) = nan2();
          return;
        }
        const std::size_t base = e * P;
        const int i1 = (i + 1) % m;
        const Vec2f c0 = corners(base + i), c1 = corners(base + i1);
        const float rad = styled ? style_rad(e) : const_rad;
        const float clamp = styled ? style_clamp(e) : const_clamp;
        const float chord = length(c1 - c0);
        const float h0 = kmath::min(rad * chord, clamp * shorter_edge(base + i));
        const float h1 = kmath::min(rad * chord, clamp * shorter_edge(base + i1));
        const Vec2f p1 = c0 + tangents(base + i) * h0;
        const Vec2f p2 = c1 - tangents(base + i1) * h1;
        const CubicWeights w = cubic_weights(static_cast<float>(s) / static_cast<float>(npseg - 1));
        dense(t) = w.b0 * c0 + w.b1 * p1 + w.b2 * p2 + w.b3 * c1;
      });
}

/// Step 8, thread per dense sample of the crossing envs only: the straight
/// corner polygon with the same cubic weights and zero handles,
/// (b0 + b1) c0 + (b2 + b3) c1 (rows of other envs are left untouched).
template <class Space>
void bezier_polygon(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                    const DView<std::int32_t, Space>& crossers, const DView<std::int32_t, Space>& count,
                    const DView<Vec2f, Space>& corners, const DView<Vec2f, Space>& poly) {
  const int P = p.num_slots, npseg = p.npseg, M = p.dense_stride();
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs) * M, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / M;
        if (crossers(e) <= 0) return;
        const int r = static_cast<int>(t % M);
        const int i = r / npseg, s = r % npseg;
        const int m = kmath::clamp(count(e), 1, P);
        if (i >= m) {
          poly(t) = nan2();
          return;
        }
        const std::size_t base = e * P;
        const Vec2f c0 = corners(base + i), c1 = corners(base + (i + 1) % m);
        const CubicWeights w = cubic_weights(static_cast<float>(s) / static_cast<float>(npseg - 1));
        poly(t) = (w.b0 + w.b1) * c0 + (w.b2 + w.b3) * c1;
      });
}

template <class Space>
BezierGenerator<Space>::BezierGenerator(const Space& space, const TrackGenConfig& config)
    : Base("bezier", BezierParams::from_config(config)) {
  allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, this->name_);
}

template <class Space>
template <class F>
void BezierGenerator<Space>::scratch_plan(const BezierParams& p, F&& f) {
  const std::size_t E = p.num_envs, P = p.num_slots, M = p.dense_stride();
  const std::size_t S = p.styled ? E : 0;
  f("style_rad", TRACKGEN_MEMBER(style_rad_), S);
  f("style_scale", TRACKGEN_MEMBER(style_scale_), S);
  f("style_clamp", TRACKGEN_MEMBER(style_clamp_), S);
  f("count", TRACKGEN_MEMBER(count_), E);
  f("raw_corners", TRACKGEN_MEMBER(raw_), E * P);
  f("corners", TRACKGEN_MEMBER(corners_), E * P);
  f("used", TRACKGEN_MEMBER(used_), E * P);
  f("keys", TRACKGEN_MEMBER(keys_), E * P);
  f("tangents", TRACKGEN_MEMBER(tangents_), E * P);
  f("shorter_edge", TRACKGEN_MEMBER(shorter_edge_), E * P);
  f("dense", TRACKGEN_MEMBER(dense_), E * M);
  f("poly", TRACKGEN_MEMBER(poly_), E * M);
  f("crossers", TRACKGEN_MEMBER(crossers_), E);
  f("arc", TRACKGEN_MEMBER(arc_), E, M);
}

template <class Space>
void BezierGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                      const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  const std::string& x = prefix_;
  if (p_.styled) bezier_style(ctx, x + "style", p_, seeds, style_rad_, style_scale_, style_clamp_);
  bezier_corners(ctx, x + "corners", p_, seeds, style_scale_, count_, raw_, used_);
  sort_by_angle(ctx, x + "sort", count_, raw_, keys_, corners_, p_.num_slots);
  bezier_tangents(ctx, x + "tangents", p_, count_, corners_, tangents_, shorter_edge_);
  bezier_assemble(ctx, x + "assemble", p_, style_rad_, style_clamp_, count_, corners_, tangents_, shorter_edge_,
                  dense_);
  arc_resample(ctx, x, dense_, out_centerline, p_.num_points, arc_);
  xcount(ctx, x, out_centerline, p_.num_points, p_.num_points, crossers_);
  bezier_polygon(ctx, x + "polygon", p_, crossers_, count_, corners_, poly_);
  arc_resample_selected(ctx, x, poly_, out_centerline, p_.num_points, crossers_, arc_);
  fill_valid(ctx, x, out_valid);
}

template <class Space>
std::size_t BezierGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const BezierParams p = BezierParams::from_config(config);
  return plan_bytes<BezierGenerator>([&](auto&& f) { scratch_plan(p, f); });
}

template <class Space>
std::size_t BezierGenerator<Space>::device_bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
}

#define TRACKGEN_INSTANTIATE_BEZIER(S) \
  template class BezierGenerator<S>; \
  template void bezier_corners<S>(const LaunchContext<S>&, const std::string&, const BezierParams&, const DView<std::int32_t, S>&, const DView<float, S>&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_BEZIER)

}  // namespace trackgen::detail

// The `polar` centerline generator (docs/algorithms.md#polar): K jittered knots
// around the unit circle (radial then angular draw per knot), a periodic
// Catmull-Rom through them, arc resample to N and bbox normalization to
// normalized_extent * scale. Counter-clockwise by construction; no crossing
// fallback. On host spaces the steps run fused, one launch with a thread per
// env; on devices one launch per step (polar.hpp).
#include <trackgen/generators/detail/polar.hpp>

namespace trackgen::detail {

PolarParams PolarParams::from_config(const TrackGenConfig& c) {
  PolarParams p;
  p.num_envs = c.num_envs;
  p.num_points = c.num_points;
  p.num_knots = kmath::max(c.polar_num_knots, 4);
  p.npseg = c.num_points_per_segment;
  p.radial_jitter = kmath::clamp(c.polar_radial_jitter, 0.0f, 0.85f);
  p.angular_jitter = kmath::clamp(c.polar_angular_jitter, 0.0f, 0.45f);
  p.target = normalized_extent * c.scale;
  return p;
}

/// Step 1 for one env: its K control points c from its seed.
KOKKOS_INLINE_FUNCTION void polar_control_points(std::int32_t seed, const PolarParams& p, Vec2f* c) {
  std::uint32_t st = stream(seed, salt::polar_controls);
  const int K = p.num_knots;
  for (int i = 0; i < K; ++i) {
    const float dr = (2.0f * randf(st) - 1.0f) * p.radial_jitter;
    const float da = (2.0f * randf(st) - 1.0f) * p.angular_jitter;
    const float r = 1.0f * kmath::max(1.0f + dr, 0.1f);
    const float theta = geom::two_pi_f * (static_cast<float>(i) + da) / static_cast<float>(K);
    c[i] = Vec2f{r * kmath::cos(theta), r * kmath::sin(theta)};
  }
}

template <class Space>
void polar_controls(const LaunchContext<Space>& ctx, const std::string& label, const PolarParams& p,
                    const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& controls) {
  const int K = p.num_knots;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs),
      KOKKOS_LAMBDA(const std::size_t e) { polar_control_points(seeds(e), p, controls.data() + e * K); });
}

/// Step 2 on a host space for one env: the periodic Catmull-Rom through its K
/// control points c, segment i, sample s at u = s / npseg (the end point is
/// excluded; the resample's wrap edge closes), each segment's coefficients
/// shared by its samples (the same floats per sample as catmull_rom).
inline void polar_dense_env(const Vec2f* c, int K, int npseg, Vec2f* out) {
  for (int i = 0; i < K; ++i) {
    const CatmullRom seg(c[(i - 1 + K) % K], c[i], c[(i + 1) % K], c[(i + 2) % K]);
    for (int s = 0; s < npseg; ++s) out[i * npseg + s] = seg.at(static_cast<float>(s) / static_cast<float>(npseg));
  }
}

/// Step 2 on a device: a thread per sample.
template <class Space>
void polar_dense(const LaunchContext<Space>& ctx, const std::string& label, const PolarParams& p,
                 const DView<Vec2f, Space>& controls, const DView<Vec2f, Space>& dense) {
  const int K = p.num_knots, npseg = p.npseg, M = K * npseg;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs) * M, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / M;
        const int r = static_cast<int>(t % M);
        const int i = r / npseg, s = r % npseg;
        const Vec2f* c = controls.data() + e * K;
        const float u = static_cast<float>(s) / static_cast<float>(npseg);
        dense(t) = catmull_rom(c[(i - 1 + K) % K], c[i], c[(i + 1) % K], c[(i + 2) % K], u);
      });
}

template <class Space>
PolarGenerator<Space>::PolarGenerator(const Space& space, const TrackGenConfig& config)
    : Base("polar", PolarParams::from_config(config)) {
  allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, this->name_);
}

template <class Space>
template <class F>
void PolarGenerator<Space>::scratch_plan(const PolarParams& p, F&& f) {
  const std::size_t E = p.num_envs, K = p.num_knots, M = K * p.npseg;
  f("controls", TRACKGEN_MEMBER(controls_), E * K);
  f("dense", TRACKGEN_MEMBER(dense_), E * M);
  f("arc", TRACKGEN_MEMBER(arc_), E, M);
}

template <class Space>
void PolarGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                     const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  if constexpr (is_host_space<Space>()) {
    // One launch, a thread per env running every step on its env: the env's
    // dense points and table are read back from L1 instead of from a pass
    // over the whole batch's buffers.
    const PolarParams p = p_;
    const std::size_t K = p.num_knots, M = K * p.npseg, N = p.num_points;
    const auto controls = controls_;
    const auto dense = dense_;
    const ArcScratch<Space> arc = arc_;
    ctx.for_each(
        prefix_ + "centerline", static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
          Vec2f* const c = controls.data() + e * K;
          Vec2f* const d = dense.data() + e * M;
          Vec2f* const o = out_centerline.data() + e * N;
          polar_control_points(seeds(e), p, c);
          polar_dense_env(c, p.num_knots, p.npseg, d);
          arc.num_real(e) = arc_env_host(d, static_cast<int>(M), arc.real.data() + e * M, arc.seg.data() + e * M,
                                         arc.cum.data() + e * (M + 1), o, p.num_points);
          normalize_env_host(o, p.num_points, p.target);
          out_valid(e) = 1;
        });
  } else {
    polar_controls(ctx, prefix_ + "controls", p_, seeds, controls_);
    polar_dense(ctx, prefix_ + "dense", p_, controls_, dense_);
    arc_resample(ctx, prefix_, dense_, out_centerline, p_.num_points, arc_);
    normalize_bbox(ctx, prefix_, out_centerline, p_.num_points, p_.num_points, p_.target);
    fill_valid(ctx, prefix_, out_valid);
  }
}

template <class Space>
std::size_t PolarGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const PolarParams p = PolarParams::from_config(config);
  return plan_bytes<PolarGenerator>([&](auto&& f) { scratch_plan(p, f); });
}

template <class Space>
std::size_t PolarGenerator<Space>::device_bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
}

#define TRACKGEN_INSTANTIATE_POLAR(S) \
  template class PolarGenerator<S>; \
  template void polar_controls<S>(const LaunchContext<S>&, const std::string&, const PolarParams&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_POLAR)

}  // namespace trackgen::detail

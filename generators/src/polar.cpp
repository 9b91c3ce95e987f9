// The `polar` centerline generator (docs/algorithms.md#polar): K jittered knots
// around the unit circle (radial then angular draw per knot), a periodic
// Catmull-Rom through them, arc resample to N and bbox normalization to
// normalized_extent * scale. Counter-clockwise by construction; no crossing
// fallback.
#include <trackgen/generators/detail/polar.hpp>

namespace trackgen::detail {

PolarParams PolarParams::from_config(const TrackGenConfig& c) {
  check_batch_params(c, "polar", 1);
  check_segment_params(c, "polar");
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

template <class Space>
void polar_controls(const LaunchContext<Space>& ctx, const std::string& label, const PolarParams& p,
                    const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& controls) {
  const int K = p.num_knots;
  const float rj = p.radial_jitter, aj = p.angular_jitter;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        std::uint32_t st = stream(seeds(e), salt::polar_controls);
        Vec2f* c = controls.data() + e * K;
        for (int i = 0; i < K; ++i) {
          const float dr = (2.0f * randf(st) - 1.0f) * rj;
          const float da = (2.0f * randf(st) - 1.0f) * aj;
          const float r = 1.0f * kmath::max(1.0f + dr, 0.1f);
          const float theta = geom::two_pi_f * (static_cast<float>(i) + da) / static_cast<float>(K);
          c[i] = Vec2f{r * kmath::cos(theta), r * kmath::sin(theta)};
        }
      });
}

/// Step 2: periodic Catmull-Rom, segment i, sample s, u = s / npseg (the end
/// point is excluded; the resample's wrap edge closes). A thread per sample
/// on devices; on host spaces a thread per env, each segment's coefficients
/// shared by its samples (the same floats per sample).
template <class Space>
void polar_dense(const LaunchContext<Space>& ctx, const std::string& label, const PolarParams& p,
                 const DView<Vec2f, Space>& controls, const DView<Vec2f, Space>& dense) {
  const int K = p.num_knots, npseg = p.npseg, M = K * npseg;
  if constexpr (is_host_space<Space>()) {
    ctx.for_each(
        label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
          const Vec2f* c = controls.data() + e * K;
          Vec2f* out = dense.data() + e * M;
          for (int i = 0; i < K; ++i) {
            const CatmullRom seg(c[(i - 1 + K) % K], c[i], c[(i + 1) % K], c[(i + 2) % K]);
            for (int s = 0; s < npseg; ++s) {
              out[i * npseg + s] = seg.at(static_cast<float>(s) / static_cast<float>(npseg));
            }
          }
        });
  } else {
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
}

template <class Space>
PolarGenerator<Space>::PolarGenerator(const Space& space, const TrackGenConfig& config)
    : Base("polar", PolarParams::from_config(config)),
      controls_(this->template scratch<Vec2f>(space, "controls", std::size_t(p_.num_envs) * p_.num_knots)),
      dense_(this->template scratch<Vec2f>(space, "dense", std::size_t(p_.num_envs) * p_.num_knots * p_.npseg)),
      arc_(space, "polar", p_.num_envs, p_.num_knots * p_.npseg) {}

template <class Space>
void PolarGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                     const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  polar_controls(ctx, prefix_ + "controls", p_, seeds, controls_);
  polar_dense(ctx, prefix_ + "dense", p_, controls_, dense_);
  arc_resample(ctx, prefix_, dense_, out_centerline, p_.num_points, arc_);
  normalize_bbox(ctx, prefix_, out_centerline, p_.num_points, p_.num_points, p_.target);
  fill_valid(ctx, prefix_, out_valid);
}

template <class Space>
std::size_t PolarGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const PolarParams p = PolarParams::from_config(config);
  const std::size_t E = p.num_envs, K = p.num_knots, M = K * p.npseg;
  return E * K * sizeof(Vec2f) + E * M * sizeof(Vec2f) + arc_scratch_bytes(E, M);
}

template <class Space>
std::size_t PolarGenerator<Space>::device_bytes() const {
  return arc_.bytes() + views_bytes(controls_, dense_);
}

#define TRACKGEN_INSTANTIATE_POLAR(S) \
  template class PolarGenerator<S>; \
  template void polar_controls<S>(const LaunchContext<S>&, const std::string&, const PolarParams&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_POLAR)

}  // namespace trackgen::detail

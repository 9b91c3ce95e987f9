// The `polar` centerline generator, reference section 2.3: K jittered knots
// around the unit circle (radial then angular draw per knot), a periodic
// Catmull-Rom through them, arc resample to N and bbox normalization to
// 1.44 * scale. Counter-clockwise by construction; no crossing fallback.
#include <trackgen/core/errors.hpp>
#include <trackgen/generators/detail/builtins.hpp>
#include <trackgen/generators/detail/common.hpp>

#include <memory>

namespace trackgen::detail {

/// The polar generator's parameters, resolved on the host from a config.
struct PolarParams {
  int num_envs = 0;
  int num_points = 0;  ///< N
  int num_knots = 0;   ///< K = max(polar_num_knots, 4)
  int npseg = 0;
  float radial_jitter = 0.0f;   ///< clamped to [0, 0.85]
  float angular_jitter = 0.0f;  ///< clamped to [0, 0.45]
  float target = 0.0f;          ///< 1.44 * scale

  static PolarParams from_config(const TrackGenConfig& c) {
    auto fail = [](const std::string& field, const std::string& value, const std::string& rule) {
      throw ConfigError("trackgen::polar: " + field + " = " + value + " is invalid (" + rule + ")");
    };
    if (c.num_envs < 1) fail("num_envs", std::to_string(c.num_envs), "must be >= 1");
    if (c.num_points < 1) fail("num_points", std::to_string(c.num_points), "must be >= 1");
    if (c.num_points_per_segment < 2) {
      fail("num_points_per_segment", std::to_string(c.num_points_per_segment), "must be >= 2");
    }
    PolarParams p;
    p.num_envs = c.num_envs;
    p.num_points = c.num_points;
    p.num_knots = kmath::max(c.polar_num_knots, 4);
    p.npseg = c.num_points_per_segment;
    p.radial_jitter = kmath::clamp(c.polar_radial_jitter, 0.0f, 0.85f);
    p.angular_jitter = kmath::clamp(c.polar_angular_jitter, 0.0f, 0.45f);
    p.target = 1.44f * c.scale;
    return p;
  }
};

/// Step 1, thread per env: per knot i, dr = (2u - 1) rj then da = (2u - 1) aj;
/// r = max(1 + dr, 0.1), theta = 2 pi (i + da) / K.
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
          const float theta = 2.0f * geom::pi_f * (static_cast<float>(i) + da) / static_cast<float>(K);
          c[i] = Vec2f{r * kmath::cos(theta), r * kmath::sin(theta)};
        }
      });
}

/// Step 2, thread per dense sample: periodic Catmull-Rom, segment i, sample s,
/// u = s / npseg (the end point is excluded; the resample's wrap edge closes).
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

/// Reference 2.3. Launch sequence of generate() (sizes for E envs):
///   controls (E) . dense (E*K*npseg) . arc_scan (E) . arc_lookup (E*N) .
///   normalize (E teams) . valid (E).
template <class Space>
class PolarGenerator final : public Generator<Space> {
 public:
  using IntView = DView<std::int32_t, Space>;
  using Vec2View = DView<Vec2f, Space>;

  PolarGenerator(const TrackGenConfig& config, const Space& space)
      : p_(PolarParams::from_config(config)),
        prefix_(gen_label("polar", "")),
        controls_(gen_view<Vec2f>(space, "polar", "controls", std::size_t(p_.num_envs) * p_.num_knots)),
        dense_(gen_view<Vec2f>(space, "polar", "dense", std::size_t(p_.num_envs) * p_.num_knots * p_.npseg)),
        arc_(space, "polar", p_.num_envs, p_.num_knots * p_.npseg) {}

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override {
    const std::size_t E = p_.num_envs, N = p_.num_points;
    if (seeds.extent(0) != E || out_centerline.extent(0) != E * N || out_valid.extent(0) != E) {
      throw ConfigError("trackgen::polar::generate: expected seeds [" + std::to_string(E) + "], out_centerline [" +
                        std::to_string(E * N) + "], out_valid [" + std::to_string(E) + "]; got [" +
                        std::to_string(seeds.extent(0)) + "], [" + std::to_string(out_centerline.extent(0)) + "], [" +
                        std::to_string(out_valid.extent(0)) + "]");
    }
    const auto region = ctx.region("TrackGen::generators::polar");
    polar_controls(ctx, prefix_ + "controls", p_, seeds, controls_);
    polar_dense(ctx, prefix_ + "dense", p_, controls_, dense_);
    arc_resample(ctx, prefix_, dense_, out_centerline, p_.num_points, arc_);
    normalize_bbox(ctx, prefix_, out_centerline, p_.num_points, p_.num_points, p_.target);
    fill_valid(ctx, prefix_, out_valid);
  }

  std::size_t device_bytes() const override {
    return arc_.bytes() + (controls_.span() + dense_.span()) * sizeof(Vec2f);
  }

 private:
  PolarParams p_;
  std::string prefix_;
  Vec2View controls_;  ///< [E*K]
  Vec2View dense_;     ///< [E*K*npseg]
  ArcScratch<Space> arc_;
};

template <class Space>
GeneratorSpec<Space> polar_spec() {
  GeneratorSpec<Space> spec;
  spec.name = "polar";
  spec.make = [](const TrackGenConfig& config, const Space& space) -> std::unique_ptr<Generator<Space>> {
    return std::make_unique<PolarGenerator<Space>>(config, space);
  };
  spec.capturable = true;
  return spec;
}

#define TRACKGEN_INSTANTIATE_POLAR(S) template GeneratorSpec<S> polar_spec<S>();
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_POLAR)

}  // namespace trackgen::detail

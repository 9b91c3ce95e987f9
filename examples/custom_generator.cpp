// A user-defined centerline generator, registered by name and run through the
// full TrackGen pipeline (resample, relax, inflate, validity).
//
// The shape: a rounded rectangle per env whose width, height and four corner
// radii are drawn from the env's seed, so the batch is a pure function of the
// seeds (and reproducible on every backend and thread count).
//
// The plugin contract (trackgen/generators/generator.hpp):
//  * A GeneratorSpec{name, make, capture} is registered once per execution
//    space with trackgen::register_generator<Space>(); a config then selects it
//    by name (TrackGenConfig::generator).
//  * spec.make(space, config) builds a Generator<Space> for a validated config.
//    All scratch is allocated there, on `space`: generate() allocates nothing.
//  * Generator::generate(ctx, seeds, out_centerline, out_valid) receives
//      seeds          [E]   int32: the per-env effective seeds (seed + epoch);
//      out_centerline [E*N] Vec2f, N = config.num_points: env e writes a closed,
//                     finite loop to [e*N, (e+1)*N). The closing edge from the
//                     last point back to the first is implicit: do not repeat
//                     the first point. Spacing need not be even (the pipeline
//                     resamples to constant spacing), and the winding may be
//                     either way;
//      out_valid      [E]   int32: 1 for a usable loop, 0 to reject the env
//                     (its track is then marked invalid downstream).
//    Every launch goes through `ctx` (ctx.for_each, ctx.fill, ...), never the
//    default instance, so that the pipeline can record it into a graph.
//  * capture = STATIC: a fixed launch sequence with no host reads of device
//    data and no host branching on it, so the producer records the stage once
//    and replays it (a CUDA graph on CUDA, a host graph on host spaces). A
//    generator that needs host control flow sets capture = CaptureClass::HOST
//    and runs eagerly every call. docs/design.md#adding-a-generator says more.
#include <trackgen/core/geometry.hpp>  // geom::pi_f
#include <trackgen/core/rng.hpp>       // stream, randf: the per-env RNG
#include <trackgen/trackgen.hpp>

#include <cmath>
#include <cstdio>
#include <memory>

namespace {

using Space = Kokkos::DefaultExecutionSpace;  // TrackGenerator<> runs here
using trackgen::Vec2f;
using IntView = trackgen::DView<std::int32_t, Space>;  // [E] or [E*N] device arrays
using Vec2View = trackgen::DView<Vec2f, Space>;

/// One env's shape: width, height and the corner radii, counter-clockwise from
/// the bottom right (BR, TR, TL, BL).
struct RoundedRect {
  float w, h, r[4];
};
using ShapeView = Kokkos::View<RoundedRect*, Space::memory_space>;

/// Kernel 1, one thread per env: draw the shape from the env's seed. Each env
/// owns a private RNG stream `stream(seed, salt, offset)`; any salt works, as
/// long as it differs from the ones other streams of this generator use.
void draw_shapes(const trackgen::LaunchContext<Space>& ctx, const IntView& seeds, const ShapeView& shapes,
                 float scale) {
  ctx.for_each(
      "TrackGen::examples::rounded_rect::shapes", shapes.extent(0), KOKKOS_LAMBDA(const std::size_t e) {
        std::uint32_t st = trackgen::stream(seeds(e), 7717, 5);
        RoundedRect s;
        s.w = scale * trackgen::randf(st, 1.1f, 1.6f);
        s.h = scale * trackgen::randf(st, 0.7f, 1.1f);
        // Up to 0.45 of the short side: two corners never overlap on one side.
        // At least 0.2 of it (>= 0.14 * scale): wider than the default half-width.
        const float side = s.h < s.w ? s.h : s.w;
        for (float& r : s.r) r = side * trackgen::randf(st, 0.2f, 0.45f);
        shapes(e) = s;
      });
}

/// Kernel 2, one thread per output point: point i of env e lies at arc length
/// L * i / N along the outline, walked as 4 x (straight side, quarter arc).
/// The loop bounds are fixed; only device code branches on the data.
void sample_outline(const trackgen::LaunchContext<Space>& ctx, const ShapeView& shapes, const Vec2View& out, int n) {
  ctx.for_each(
      "TrackGen::examples::rounded_rect::outline", out.extent(0), KOKKOS_LAMBDA(const std::size_t t) {
        const RoundedRect s = shapes(t / n);
        const float quarter = 0.5f * trackgen::geom::pi_f;
        const float sx[4] = {1, 1, -1, -1}, sy[4] = {-1, 1, 1, -1};  // corner quadrants
        // Corner k: an arc around center[k] from start[k] to end[k].
        Vec2f center[4], start[4], end[4];
        for (int k = 0; k < 4; ++k) {
          center[k] = Vec2f{sx[k] * (0.5f * s.w - s.r[k]), sy[k] * (0.5f * s.h - s.r[k])};
          const float a0 = (k - 1) * quarter, a1 = k * quarter;
          start[k] = center[k] + s.r[k] * Vec2f{trackgen::kmath::cos(a0), trackgen::kmath::sin(a0)};
          end[k] = center[k] + s.r[k] * Vec2f{trackgen::kmath::cos(a1), trackgen::kmath::sin(a1)};
        }
        // Side k runs from the end of arc k-1 to the start of arc k.
        float total = 0.0f;
        for (int k = 0; k < 4; ++k) total += trackgen::length(start[k] - end[(k + 3) % 4]) + quarter * s.r[k];

        float d = total * static_cast<float>(t % n) / static_cast<float>(n);
        Vec2f p = end[3];  // d = 0: the start of side 0 (also where rounding may leave d = total)
        for (int k = 0; k < 4; ++k) {
          const Vec2f a = end[(k + 3) % 4];
          const float side = trackgen::length(start[k] - a), arc = quarter * s.r[k];
          if (d >= 0.0f && d < side) p = a + (d / side) * (start[k] - a);
          d -= side;
          if (d >= 0.0f && d < arc) {
            const float angle = (k - 1) * quarter + d / s.r[k];
            p = center[k] + s.r[k] * Vec2f{trackgen::kmath::cos(angle), trackgen::kmath::sin(angle)};
          }
          d -= arc;
        }
        out(t) = p;
      });
}

/// The generator: holds its config values and scratch, both fixed at construction.
class RoundedRectGenerator final : public trackgen::Generator<Space> {
 public:
  RoundedRectGenerator(const Space& space, const trackgen::TrackGenConfig& config)
      : n_(config.num_points),
        scale_(config.scale),
        // Scratch: one shape per env, allocated once on the producer's instance.
        shapes_(Kokkos::view_alloc(space, std::string("TrackGen::examples::rounded_rect::shapes")),
                std::size_t(config.num_envs)) {}

  void generate(const trackgen::LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override {
    draw_shapes(ctx, seeds, shapes_, scale_);
    sample_outline(ctx, shapes_, out_centerline, n_);
    ctx.fill(out_valid, std::int32_t(1));  // every rounded rectangle is a usable loop
  }

  std::size_t device_bytes() const override { return trackgen::view_bytes(shapes_); }

 private:
  int n_;
  float scale_;
  ShapeView shapes_;  ///< [E]
};

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);

  // Register once per execution space, before any TrackGenerator asks for the
  // name (registering a name twice throws trackgen::ConfigError).
  trackgen::GeneratorSpec<Space> spec;
  spec.name = "rounded_rect";
  spec.make = [](const Space& space,
                 const trackgen::TrackGenConfig& config) -> std::unique_ptr<trackgen::Generator<Space>> {
    return std::make_unique<RoundedRectGenerator>(space, config);
  };
  spec.capture = trackgen::CaptureClass::STATIC;
  trackgen::register_generator(spec);

  trackgen::TrackGenConfig config;
  config.num_envs = 256;
  config.generator = "rounded_rect";  // selected by name, like a built-in
  trackgen::TrackGenerator<> gen(config, trackgen::SeedState<>(config.num_envs, 7));
  gen.generate();                              // records the producer's graph
  const auto host = gen.generate().to_host();  // replays it

  int valid = 0, broken = 0;
  double length = 0.0;
  for (int e = 0; e < config.num_envs; ++e) {
    if (host.valid(e) == 0) continue;
    ++valid;
    length += host.length(e);
    // A valid track: a sane point count, finite points, a positive length.
    bool ok = host.count(e) >= 3 && host.count(e) <= host.n_max() && host.length(e) > 0.0f;
    for (int i = 0; ok && i < host.count(e); ++i) ok = trackgen::is_finite(host.center(e * host.n_max() + i));
    broken += ok ? 0 : 1;
  }
  const double yield = double(valid) / config.num_envs;
  std::printf("rounded_rect: yield %.3f (%d of %d), mean track length %.3f, %d malformed\n", yield, valid,
              config.num_envs, valid > 0 ? length / valid : 0.0, broken);
  return yield >= 0.95 && broken == 0 ? 0 : 1;
}

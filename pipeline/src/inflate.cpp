// Inflation and validity (docs/algorithms.md#inflation, docs/algorithms.md#validity)
// with the elevation profiles (docs/algorithms.md#elevation).
//
// Kernels:
//  - inflate::reuniformize: resample_uniform of the relax output into ctr2.
//  - inflate::frames_offset_validity: one team per env, in phases separated by
//    team barriers:
//      A (thread per point) tangent, left normal, Menger curvature, segment
//        length and an estimate of the turn from the incoming to the outgoing
//        edge (geom::turn_estimate); NaN padding;
//      B (one thread) the env's float64 arc-length scan, perimeter, shoelace
//        winding, and both offset candidates' areas, all summed in point order,
//        which picks the outer border (larger |area|) and the thickness band;
//        the knots of a knot-based z profile (uniform, random_walk);
//      C (thread per point) z of the point from its plan-view arc length (the
//        profile), offsets and the lift to Vec3 into the Track; NaN padding;
//      L (non-flat profiles only, thread per point) 3D central-difference unit
//        tangents of the lifted centerline;
//      D (one thread) non-flat: the 3D arc length (float64 scan) replacing the
//        plan-view one; validity: the turning test (from the estimates where
//        their error bound decides it, else from the exact float sum), NaN, width floor,
//        the curvature half of the thickness test (Menger radius), grade,
//        gen_valid; each failed test sets its InvalidReason bit.
//    Float results are produced by exactly one thread each, sums in a fixed
//    order: nothing depends on team size or scheduling.
//  - inflate::near_pairs (pairs.cpp): the tests over pairs of nearby points,
//    O(count) per env through a grid: the separation half of the thickness
//    test, and with validity_border_check the loop check; clears valid where
//    one fails and adds the thickness or crossing bit.
//
// Lift rules: flat keeps the plan-view tangent (t.x, t.y, 0) and
// arc length and puts every point, padding included, at z_base; a non-flat
// profile gives the cross-section one z (so |outer - center| = hw in plan view),
// padding z = 0, 3D tangents and arc length, and planar normals. The original system
// accumulates the 3D arc length in float32; here it is float64 like the 2D one.
//
// Thickness band: the original system recomputes SEPBAND(perimeter / count, 2 hw) from
// the re-uniformized chain and ignores a relax_band override, so a track relaxed
// with an overridden band could be judged with another one. Here, when
// relax_band is set, validity uses that band (the one the relaxation used);
// otherwise the original system's band from the final geometry.
#include "pipeline_detail.hpp"

#include <cstring>

namespace trackgen {
namespace {

/// Writes v to p[0, count): on a host space in blocks of 16 copies (whole
/// vector stores instead of a store per coordinate); padding is most of a
/// row (N_max against a track's hundred points or so).
template <class Space, class Member>
KOKKOS_INLINE_FUNCTION void fill_points(const Member& team, Vec3f* p, int count, Vec3f v) {
  if constexpr (detail::is_host_space<Space>()) {
    Vec3f block[16];
    for (Vec3f& b : block) b = v;
    int i = 0;
    for (; i + 16 <= count; i += 16) std::memcpy(p + i, block, sizeof(block));
    for (; i < count; ++i) p[i] = v;
  } else {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int i) { p[i] = v; });
  }
}

template <class Space>
struct InflateKernel {
  DView<Vec2f, Space> ctr2;
  DView<int, Space> count;
  DView<int, Space> gen_valid;
  DView<Vec3f, Space> outer, center, inner, tangent, normal;
  DView<float, Space> arclen, length_out, winding;
  DView<int, Space> valid, invalid_reason, truncated;
  DView<std::int32_t, Space> padded;  // [E] rows from which the padding is known (empty: none known)
  DView<float, Space> seg, turn, kappa;
  DView<int, Space> env_band, env_flip;
  DView<std::int32_t, Space> seeds;
  DView<float, Space> z_knots;
  ZParams z;
  float z_valid_grade = 0;

  int n_max = 0;
  float hw = 0;
  float two_hw = 0;
  float min_thickness = 0;
  float turning_tol = 0;
  bool width_ok = true;
  bool has_band_override = false;
  int band_override = 0;

  /// z of point i of env e (count cnt) at its plan-view arc length.
  KOKKOS_FUNCTION float elevation(int e, int i, int cnt, float perimeter) const {
    if (z.profile == ZProfile::flat) return z.base;
    if (i >= cnt) return 0.0f;
    const float arc = arclen(static_cast<std::size_t>(e) * n_max + i);
    if (z.profile == ZProfile::noise) return z_noise(seeds(e), arc, perimeter, z);
    return z_knot_cubic(z_knots.data() + static_cast<std::size_t>(e) * z.knots, z.knots, arc, perimeter);
  }

  /// Replaces the plan-view arc length and perimeter of env e by the lifted
  /// centerline's (float64 scan in point order); fewer than 3 points: NaN arc
  /// lengths and length 0.
  KOKKOS_FUNCTION void lift_arclen(std::size_t base, int cnt, int e) const {
    if (cnt < 3) {
      for (int i = 0; i < cnt; ++i) arclen(base + i) = nanf();
      length_out(e) = 0.0f;
      return;
    }
    double acc = 0.0;
    for (int i = 0; i < cnt; ++i) {
      arclen(base + i) = static_cast<float>(acc);
      acc += static_cast<double>(length(center(base + (i + 1 < cnt ? i + 1 : 0)) - center(base + i)));
    }
    length_out(e) = static_cast<float>(acc);
  }

  /// The turning test ||T| - 2 pi| <= turning_tol (float), T the float sum in
  /// point order of the wrapped heading changes (geom::total_turning of the
  /// env's cnt points c): decided from the estimates' sum `turning` and the
  /// sum of their magnitudes where that is certain, else from T itself. Each
  /// estimate is within turn_estimate_error of its term, and each of the float
  /// sum's cnt additions rounds by at most 2^-24 of a partial sum, whose
  /// magnitude stays below `magnitude` plus the error; 2^-23 (magnitude + 8)
  /// per term covers that and the test's own float operations. A NaN
  /// estimate makes both sums NaN, and T decides.
  KOKKOS_FUNCTION bool turning_within(const Vec2f* c, int cnt, double turning, double magnitude) const {
    const float two_pi = geom::two_pi_f;
    const double off = kmath::fabs(kmath::fabs(turning) - static_cast<double>(two_pi));
    const double bound = cnt * (static_cast<double>(geom::turn_estimate_error) + 0x1p-23 * (magnitude + 8.0));
    if (off + bound < static_cast<double>(turning_tol)) return true;
    if (off - bound > static_cast<double>(turning_tol)) return false;
    return kmath::fabs(kmath::fabs(geom::total_turning(c, cnt)) - two_pi) <= turning_tol;
  }

  /// Grade check: |z_j - z_i| <= z_valid_grade * max(plan-view |c_j - c_i|, 1e-9)
  /// for every consecutive pair, the closing pair included.
  KOKKOS_FUNCTION bool grade_within(std::size_t base, int cnt) const {
    for (int i = 0; i < cnt; ++i) {
      const float dz = center(base + (i + 1 < cnt ? i + 1 : 0)).z - center(base + i).z;
      if (kmath::fabs(dz) > z_valid_grade * kmath::max(seg(base + i), 1e-9f)) return false;
    }
    return true;
  }

  // Long (about 140 lines) on purpose: one team kernel whose phases (listed at
  // the top of this file) are separated by team barriers and share the env's
  // per-point scratch; each phase is a block below.
  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const int cnt = kmath::min(count(e), n_max);
    // Padding rows to write: [cnt, pad_end); the rows from padded(e) on
    // already hold it.
    const int pad_end = padded.extent(0) > 0 ? kmath::max(kmath::min(padded(e), n_max), cnt) : n_max;
    const Vec2f* const c = ctr2.data() + base;

    // --- A: per-point frames and local quantities
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cnt), [&](const int i) {
      const std::size_t s = base + static_cast<std::size_t>(i);
      const Vec2f cp = c[i > 0 ? i - 1 : cnt - 1], ci = c[i], cn = c[i + 1 < cnt ? i + 1 : 0];
      const Vec2f t = geom::safe_norm2(cn - cp);
      tangent(s) = Vec3f{t.x, t.y, 0.0f};
      normal(s) = Vec3f{-t.y, t.x, 0.0f};
      kappa(s) = geom::menger_curvature(cp, ci, cn);
      const Vec2f e_out = cn - ci;
      seg(s) = length(e_out);
      turn(s) = geom::turn_estimate(ci - cp, e_out);  // NaN where unsure; the exact sum in phase D then
    });
    fill_points<Space>(team, tangent.data() + base + cnt, pad_end - cnt, Vec3f{nanf(), nanf(), 0.0f});
    fill_points<Space>(team, normal.data() + base + cnt, pad_end - cnt, Vec3f{nanf(), nanf(), 0.0f});
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cnt, pad_end), [&](const int i) { arclen(base + i) = nanf(); });
    team.team_barrier();

    // --- B: per-env scans in point order (one thread)
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      double acc = 0.0;
      for (int i = 0; i < cnt; ++i) {
        arclen(base + i) = static_cast<float>(acc);
        acc += static_cast<double>(seg(base + i));
      }
      const float perimeter = static_cast<float>(acc);
      length_out(e) = perimeter;
      const double a2 = geom::shoelace2(c, cnt);
      winding(e) = a2 > 0.0 ? 1.0f : (a2 < 0.0 ? -1.0f : 0.0f);
      // Offset candidates a = c + hw n, b = c - hw n: twice their signed areas.
      double area_a = 0.0, area_b = 0.0;
      for (int i = 0; i < cnt; ++i) {
        const int j = i + 1 < cnt ? i + 1 : 0;
        const Vec3f ni3 = normal(base + i), nj3 = normal(base + j);
        const Vec2f ni{ni3.x, ni3.y}, nj{nj3.x, nj3.y};
        const Vec2f ai = c[i] + hw * ni, aj = c[j] + hw * nj;
        const Vec2f bi = c[i] - hw * ni, bj = c[j] - hw * nj;
        area_a += static_cast<double>(ai.x) * aj.y - static_cast<double>(ai.y) * aj.x;
        area_b += static_cast<double>(bi.x) * bj.y - static_cast<double>(bi.y) * bj.x;
      }
      env_flip(e) = kmath::fabs(area_a) >= kmath::fabs(area_b) ? 0 : 1;
      env_band(e) = has_band_override ? band_override : geom::sep_band(perimeter / static_cast<float>(cnt), two_hw);
      if (z.profile == ZProfile::uniform) {
        for (int k = 0; k < z.knots; ++k) z_knots(e * z.knots + k) = z_uniform_knot(seeds(e), k, z);
      } else if (z.profile == ZProfile::random_walk) {
        z_random_walk_knots(seeds(e), perimeter, z, z_knots.data() + static_cast<std::size_t>(e) * z.knots);
      }
    });
    team.team_barrier();

    // --- C: elevation, offsets, lift
    const bool lifted = z.profile != ZProfile::flat;
    const float perimeter = length_out(e);
    const int flip = env_flip(e);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cnt), [&](const int i) {
      const std::size_t s = base + static_cast<std::size_t>(i);
      const Vec2f ci = c[i];
      const Vec3f n3 = normal(s);
      const Vec2f n{n3.x, n3.y};
      const Vec2f pa = ci + hw * n, pb = ci - hw * n;
      const Vec2f o = flip ? pb : pa, in = flip ? pa : pb;
      const float zi = elevation(e, i, cnt, perimeter);
      center(s) = Vec3f{ci.x, ci.y, zi};
      outer(s) = Vec3f{o.x, o.y, zi};
      inner(s) = Vec3f{in.x, in.y, zi};
    });
    // Padding: NaN in plan view (the centre line and normals are NaN there),
    // at the padding z of the profile.
    const Vec3f pad{nanf(), nanf(), lifted ? 0.0f : z.base};
    fill_points<Space>(team, center.data() + base + cnt, pad_end - cnt, pad);
    fill_points<Space>(team, outer.data() + base + cnt, pad_end - cnt, pad);
    fill_points<Space>(team, inner.data() + base + cnt, pad_end - cnt, pad);
    team.team_barrier();

    // --- L: 3D tangents of a lifted centerline (needs the neighbours' z)
    if (lifted) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cnt), [&](const int i) {
        if (cnt < 3) {
          tangent(base + i) = nan3();
          return;
        }
        const Vec3f d = center(base + (i + 1 < cnt ? i + 1 : 0)) - center(base + (i > 0 ? i - 1 : cnt - 1));
        const float l = length(d);
        tangent(base + i) = l > 1e-12f ? Vec3f{d.x / l, d.y / l, d.z / l} : Vec3f{0.0f, 0.0f, 0.0f};
      });
    }

    // --- D: 3D arc length, validity (one thread, point order)
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (lifted) lift_arclen(base, cnt, e);
      // One InvalidReason bit per failed test; valid exactly when none failed.
      std::int32_t reason = gen_valid(e) != 0 ? 0 : InvalidReason::generator;
      if (cnt == 0) reason |= InvalidReason::too_few_points;
      if (cnt > 0) {
        double turning = 0.0, magnitude = 0.0;  // of the estimates
        bool finite = true;
        float kmax = 0.0f;
        for (int i = 0; i < cnt; ++i) {
          const float t = turn(base + i);
          turning += t;
          magnitude += kmath::fabs(t);
          finite = finite && is_finite(c[i]);
          kmax = kmath::max(kmax, kappa(base + i));
        }
        const bool turn_ok = turning_within(c, cnt, turning, magnitude);
        // thickness = min(rad_min, sep_min / 2) >= min_thickness: the radius
        // half here, the separation half in near_pairs
        const float rad_min = 1.0f / kmath::max(kmax, 1e-12f);
        const bool th_ok = rad_min >= min_thickness;
        const bool grade_ok = z_valid_grade <= 0.0f || grade_within(base, cnt);
        if (!turn_ok) reason |= InvalidReason::turning;
        if (!width_ok) reason |= InvalidReason::width;
        if (!finite) reason |= InvalidReason::non_finite;
        if (!th_ok) reason |= InvalidReason::thickness;
        if (!grade_ok) reason |= InvalidReason::grade;
      }
      if (reason != 0 && cnt < 3) reason |= InvalidReason::too_few_points;
      if (reason != 0 && truncated(e) != 0) reason |= InvalidReason::truncated;
      valid(e) = reason == 0 ? 1 : 0;
      invalid_reason(e) = reason;
      if (padded.extent(0) > 0) padded(e) = cnt;
    });
  }
};

/// Throws ConfigError (naming `api`) unless `padded`, of `entries` entries, is
/// empty or has an entry per env.
void check_padded(std::size_t entries, int num_envs, const char* api) {
  if (entries != 0 && entries != static_cast<std::size_t>(num_envs)) {
    throw ConfigError(std::string(api) + ": padded has " + std::to_string(entries) +
                      " entries, num_envs is " + std::to_string(num_envs) + " (or leave it empty)");
  }
}

}  // namespace

template <class Space>
void inflate(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
             const DView<std::int32_t, Space>& seeds, Track<typename Space::memory_space>& track,
             const DView<std::int32_t, Space>& padded) {
  const auto region = ctx.region("TrackGen::pipeline::inflate");
  detail::check_inputs(ctx.space(), buffers, config, track, "trackgen::inflate");
  if (seeds.extent(0) != static_cast<std::size_t>(buffers.num_envs())) {
    throw ConfigError("trackgen::inflate: seeds has " + std::to_string(seeds.extent(0)) + " entries, num_envs is " +
                      std::to_string(buffers.num_envs()));
  }
  check_padded(padded.extent(0), buffers.num_envs(), "trackgen::inflate");
  const PipelineConstants c = pipeline_constants(config);
  resample_uniform(ctx, relax_output(config, buffers), track.count, buffers.ctr2, buffers.arc_s, buffers.n_max(),
                   "TrackGen::pipeline::inflate::reuniformize");
  InflateKernel<Space> k;
  k.ctr2 = buffers.ctr2;
  k.count = track.count;
  k.gen_valid = buffers.gen_valid;
  k.outer = track.outer;
  k.center = track.center;
  k.inner = track.inner;
  k.tangent = track.tangent;
  k.normal = track.normal;
  k.arclen = track.arclen;
  k.length_out = track.length;
  k.winding = track.winding;
  k.valid = track.valid;
  k.invalid_reason = track.invalid_reason;
  k.truncated = track.truncated;
  k.padded = padded;
  k.seg = buffers.seg;
  k.turn = buffers.turn;
  k.kappa = buffers.kappa;
  k.env_band = buffers.env_band;
  k.env_flip = buffers.env_flip;
  k.n_max = buffers.n_max();
  k.hw = c.half_width;
  k.two_hw = c.two_hw;
  k.min_thickness = c.min_thickness;
  k.turning_tol = c.turning_tol;
  k.seeds = seeds;
  k.z_knots = buffers.z_knots;
  k.z = c.z;
  k.z_valid_grade = c.z_valid_grade;
  k.width_ok = c.half_width > c.w_floor;
  k.has_band_override = config.relax_band.has_value();
  k.band_override = config.relax_band.value_or(0);
  ctx.for_each_team("TrackGen::pipeline::inflate::frames_offset_validity", buffers.num_envs(),
                    detail::env_team_size<Space>(), k);
  check_near_pairs(ctx, config, buffers, track);
}

template <class Space>
void run_pipeline(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                  const DView<std::int32_t, Space>& seeds, Track<typename Space::memory_space>& track,
                  const DView<std::int32_t, Space>& padded) {
  check_padded(padded.extent(0), buffers.num_envs(), "trackgen::run_pipeline");
  resample_constant_spacing(ctx, config, buffers, track);
  relax(ctx, config, buffers, track);
  inflate(ctx, config, buffers, seeds, track, padded);
}

#define TRACKGEN_INSTANTIATE_INFLATE(S)                                                                   \
  template void inflate<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,          \
                           const DView<std::int32_t, S>&, Track<typename S::memory_space>&,               \
                           const DView<std::int32_t, S>&);                                                \
  template void run_pipeline<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,     \
                                const DView<std::int32_t, S>&, Track<typename S::memory_space>&,          \
                                const DView<std::int32_t, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_INFLATE)

}  // namespace trackgen

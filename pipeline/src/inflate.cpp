// Inflation and validity (reference 3.5, 3.6).
//
// Kernels:
//  - inflate::reuniformize: resample_uniform of the relax output into ctr2.
//  - inflate::frames_offset_validity: one team per env, in phases separated by
//    team barriers:
//      A (thread per point) tangent, left normal, Menger curvature, segment
//        length and wrapped heading change of each real point; NaN padding;
//      B (one thread) the env's float64 arc-length scan, perimeter, shoelace
//        winding, and both offset candidates' areas, all summed in point order,
//        which picks the outer border (larger |area|) and the thickness band;
//      C (thread per point) offsets and the flat lift to Vec3 into the Track,
//        and the O(count) thickness scan of point i against points j > i;
//      C' (optional border check, thread per segment) XCOUNT of outer + inner
//        (integer sum: order-independent);
//      D (one thread) validity: turning sum in point order, NaN, width floor,
//        thickness from the per-point minima, border crossings, gen_valid.
//    Float results are produced by exactly one thread each, sums in a fixed
//    order: nothing depends on team size or scheduling.
//
// Elevation (reference 3.7) plugs in at exactly one place: phase C's `z` (today
// the flat profile, z_base everywhere). A z profile computes z per point from
// (arclen, length) of phase B; its 3D tangents/arclen and the grade check extend
// phases C and D.
//
// Thickness band: the reference recomputes SEPBAND(perimeter / count, 2 hw) from
// the re-uniformized chain and ignores a relax_band override, so a track relaxed
// with an overridden band could be judged with another one. Here, when
// relax_band is set, validity uses that band (the one the relaxation used);
// otherwise the reference's band from the final geometry.
#include "pipeline_detail.hpp"

namespace trackgen {
namespace {

template <class Space>
struct InflateKernel {
  DView<Vec2f, Space> ctr2;
  DView<int, Space> count;
  DView<int, Space> gen_valid;
  DView<Vec3f, Space> outer, center, inner, tangent, normal;
  DView<float, Space> arclen, length_out, winding;
  DView<int, Space> valid;
  DView<float, Space> seg, turn, kappa, th_min;
  DView<Vec2f, Space> out2, inn2;
  DView<int, Space> env_band, env_flip;

  int n_max = 0;
  float hw = 0;
  float two_hw = 0;
  float min_thickness = 0;
  float turning_tol = 0;
  float z_base = 0;
  bool width_ok = true;
  bool border_check = false;
  bool has_band_override = false;
  int band_override = 0;

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const int cnt = kmath::min(count(e), n_max);
    const Vec2f* const c = ctr2.data() + base;

    // --- A: per-point frames and local quantities
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_max), [&](const int i) {
      const std::size_t s = base + static_cast<std::size_t>(i);
      if (i < cnt) {
        const Vec2f cp = c[i > 0 ? i - 1 : cnt - 1], ci = c[i], cn = c[i + 1 < cnt ? i + 1 : 0];
        const Vec2f t = geom::safe_norm2(cn - cp);
        tangent(s) = Vec3f{t.x, t.y, 0.0f};
        normal(s) = Vec3f{-t.y, t.x, 0.0f};
        kappa(s) = geom::menger_curvature(cp, ci, cn);
        const Vec2f e_out = cn - ci, e_in = ci - cp;
        seg(s) = length(e_out);
        turn(s) = geom::wrap_angle(kmath::atan2(e_out.y, e_out.x) - kmath::atan2(e_in.y, e_in.x));
      } else {
        tangent(s) = Vec3f{nanf(), nanf(), 0.0f};
        normal(s) = Vec3f{nanf(), nanf(), 0.0f};
        arclen(s) = nanf();
      }
    });
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
    });
    team.team_barrier();

    // --- C: offsets, flat lift, per-point thickness scan
    const int flip = env_flip(e);
    const int band_e = kmath::max(env_band(e), 0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_max), [&](const int i) {
      const std::size_t s = base + static_cast<std::size_t>(i);
      const Vec2f ci = c[i];  // NaN at padding
      const Vec3f n3 = normal(s);
      const Vec2f n{n3.x, n3.y};
      const Vec2f pa = ci + hw * n, pb = ci - hw * n;
      const Vec2f o = flip ? pb : pa, in = flip ? pa : pb;
      // The elevation plug-in point: flat profile.
      const float z = z_base;
      center(s) = Vec3f{ci.x, ci.y, z};
      outer(s) = Vec3f{o.x, o.y, z};
      inner(s) = Vec3f{in.x, in.y, z};
      if (border_check) {
        out2(s) = o;
        inn2(s) = in;
      }
      if (i < cnt) {
        // j > i with circ(i, j, cnt) > band  <=>  band < j - i < cnt - band
        float m = detail::no_pair_d2;
        const int j_end = kmath::min(cnt, i + cnt - band_e);
        for (int j = i + band_e + 1; j < j_end; ++j) m = kmath::min(m, length_sq(ci - c[j]));
        th_min(s) = m;
      }
    });
    team.team_barrier();

    // --- C': optional border self-intersection check (integer count)
    int crossings = 0;
    if (border_check && cnt > 0) {
      const Vec2f* const po = out2.data() + base;
      const Vec2f* const pi = inn2.data() + base;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, cnt),
          [&](const int i, int& sum) { sum += geom::xcount_segment(po, cnt, i) + geom::xcount_segment(pi, cnt, i); },
          crossings);
    }

    // --- D: validity (one thread, point order)
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      int ok = 0;
      if (cnt > 0) {
        float turning = 0.0f;
        bool finite = true;
        float kmax = 0.0f;
        float d2 = detail::no_pair_d2;
        for (int i = 0; i < cnt; ++i) {
          turning += turn(base + i);
          finite = finite && is_finite(c[i]);
          kmax = kmath::max(kmax, kappa(base + i));
          d2 = kmath::min(d2, th_min(base + i));
        }
        const float two_pi = 2.0f * geom::pi_f;
        const bool turn_ok = kmath::fabs(kmath::fabs(turning) - two_pi) <= turning_tol;
        const float sep_min = d2 < detail::no_pair_d2 ? kmath::sqrt(d2) : 1e30f;
        const float rad_min = 1.0f / kmath::max(kmax, 1e-12f);
        const float thickness = kmath::min(rad_min, 0.5f * sep_min);
        const bool th_ok = thickness >= min_thickness;
        ok = (gen_valid(e) != 0 && turn_ok && width_ok && finite && th_ok && crossings == 0) ? 1 : 0;
      }
      valid(e) = ok;
    });
  }
};

}  // namespace

template <class Space>
void inflate(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
             Track<typename Space::memory_space>& track) {
  detail::ProfilingRegion region("TrackGen::pipeline::inflate");
  detail::check_inputs(buffers, config, track, "trackgen::inflate");
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
  k.seg = buffers.seg;
  k.turn = buffers.turn;
  k.kappa = buffers.kappa;
  k.th_min = buffers.th_min;
  k.out2 = buffers.out2;
  k.inn2 = buffers.inn2;
  k.env_band = buffers.env_band;
  k.env_flip = buffers.env_flip;
  k.n_max = buffers.n_max();
  k.hw = c.half_width;
  k.two_hw = c.two_hw;
  k.min_thickness = c.min_thickness;
  k.turning_tol = c.turning_tol;
  k.z_base = c.z_base;
  k.width_ok = c.half_width > c.w_floor;
  k.border_check = config.validity_border_check;
  k.has_band_override = config.relax_band.has_value();
  k.band_override = config.relax_band.value_or(0);
  ctx.for_each_team("TrackGen::pipeline::inflate::frames_offset_validity", buffers.num_envs(),
                    detail::env_team_size<Space>(), k);
}

template <class Space>
void run_pipeline(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                  Track<typename Space::memory_space>& track) {
  resample_constant_spacing(ctx, config, buffers, track);
  relax(ctx, config, buffers, track);
  inflate(ctx, config, buffers, track);
}

#define TRACKGEN_INSTANTIATE_INFLATE(S)                                                                   \
  template void inflate<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,          \
                           Track<typename S::memory_space>&);                                            \
  template void run_pipeline<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,     \
                                Track<typename S::memory_space>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_INFLATE)

}  // namespace trackgen

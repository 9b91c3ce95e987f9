#include <trackgen/generators/detail/common.hpp>

namespace trackgen::detail {

PointFamilyParams PointFamilyParams::from_config(const TrackGenConfig& c) {
  PointFamilyParams p;
  p.num_envs = c.num_envs;
  p.num_points = c.num_points;
  p.num_slots = c.max_num_points;
  p.npseg = c.num_points_per_segment;
  p.min_num_points = c.min_num_points;
  // The original system evaluates int(1 / (2 * min_point_distance)) in double on its
  // Python float; see as_python_double for why the float field is not used as is.
  p.num_cells = static_cast<int>(1.0 / (2.0 * as_python_double(c.min_point_distance)));
  p.cell_size = 2.0f * c.min_point_distance;
  return p;
}

template <class Space>
ArcScratch<Space>::ArcScratch(const Space& space, const std::string& gen, int num_envs_, int stride_)
    : num_envs(num_envs_), stride(stride_) {
  allocate_plan(*this, [&](auto&& f) { plan(std::size_t(num_envs), std::size_t(stride), f); }, space, gen);
}

template <class Space>
std::size_t ArcScratch<Space>::bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { plan(std::size_t(num_envs), std::size_t(stride), f); });
}

template <class Space>
std::size_t ArcScratch<Space>::bytes_for(std::size_t num_envs, std::size_t stride) {
  return plan_bytes<ArcScratch>([&](auto&& f) { plan(num_envs, stride, f); });
}

// The kernels behind the public launchers.
namespace impl {

// Both ARC variants: `active` of extent 0 means every env is active.
template <class Space>
void arc_impl(const LaunchContext<Space>& ctx, const std::string& scan_label, const std::string& lookup_label,
              const DView<Vec2f, Space>& dense, const DView<Vec2f, Space>& out, int num,
              const DView<std::int32_t, Space>& active, const ArcScratch<Space>& scratch) {
  const auto real = scratch.real;
  const auto seg = scratch.seg;
  const auto cum = scratch.cum;
  const auto num_real = scratch.num_real;
  const std::size_t M = static_cast<std::size_t>(scratch.stride);
  const bool all = active.extent(0) == 0;

  const std::size_t n = static_cast<std::size_t>(num);
  if constexpr (detail::is_host_space<Space>()) {
    // Thread per env, scan and lookup in one launch: an env whose dense points
    // are all finite (the usual case) is read in place instead of compacted;
    // its points are placed in order, each segment walked to from the
    // previous one when the table rises (the same segments as the search).
    ctx.for_each(
        scan_label, static_cast<std::size_t>(scratch.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
          if (!all && active(e) <= 0) return;
          num_real(e) = arc_env_host(dense.data() + e * M, static_cast<int>(M), real.data() + e * M,
                                     seg.data() + e * M, cum.data() + e * (M + 1), out.data() + e * n, num);
        });
    (void)lookup_label;
  } else {
    // Scan: thread per env, sequential over the env's M dense points.
    ctx.for_each(
        scan_label, static_cast<std::size_t>(scratch.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
          if (!all && active(e) <= 0) return;
          const Vec2f* in = dense.data() + e * M;
          Vec2f* r = real.data() + e * M;
          int R = 0;
          for (std::size_t j = 0; j < M; ++j) {
            const Vec2f p = in[j];
            if (is_finite(p)) r[R++] = p;
          }
          num_real(e) = R;
          if (R >= 2) arc_table(r, R, seg.data() + e * M, cum.data() + e * (M + 1));
        });
    // Lookup: thread per output point.
    ctx.for_each(
        lookup_label, static_cast<std::size_t>(scratch.num_envs) * n, KOKKOS_LAMBDA(const std::size_t t) {
          const std::size_t e = t / n, k = t % n;
          if (!all && active(e) <= 0) return;
          const int R = num_real(e);
          if (R < 2) {
            out(t) = nan2();
            return;
          }
          const float* s = cum.data() + e * (M + 1);
          const float target = static_cast<float>(k) * s[R] / static_cast<float>(n);
          out(t) = arc_point_at(real.data() + e * M, seg.data() + e * M, s, R, target, geom::arc_segment(s, R, target));
        });
  }
}

// XCOUNT, `count` of extent 0 meaning n points per env, `active` of extent 0
// meaning every env (otherwise inactive envs get 0).
template <class Space>
void xcount_impl(const LaunchContext<Space>& ctx, const std::string& label, const DView<Vec2f, Space>& pts, int stride,
                 int n, const DView<std::int32_t, Space>& count, const DView<std::int32_t, Space>& active,
                 const DView<std::int32_t, Space>& out_count) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const bool fixed = count.extent(0) == 0;
  const bool all = active.extent(0) == 0;
  const std::size_t S = static_cast<std::size_t>(stride);
  ctx.for_each_team(
      label, static_cast<int>(out_count.extent(0)), xcount_team_size<Space>(), KOKKOS_LAMBDA(const member_type& team) {
        const int e = team.league_rank();
        const int ne = (!all && active(e) <= 0) ? 0 : (fixed ? n : count(e));
        const int total = xcount_in_team<Space>(team, pts.data() + static_cast<std::size_t>(e) * S, ne);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { out_count(e) = total; });
      });
}

}  // namespace impl

template <class Space>
void arc_resample(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& dense,
                  const DView<Vec2f, Space>& out, int num, const ArcScratch<Space>& scratch) {
  impl::arc_impl(ctx, prefix + "arc_scan", prefix + "arc_lookup", dense, out, num, DView<std::int32_t, Space>(),
                 scratch);
}

template <class Space>
void arc_resample_selected(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& dense,
                           const DView<Vec2f, Space>& out, int num, const DView<std::int32_t, Space>& active,
                           const ArcScratch<Space>& scratch) {
  impl::arc_impl(ctx, prefix + "arc_scan_selected", prefix + "arc_lookup_selected", dense, out, num, active, scratch);
}

template <class Space>
void xcount(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts, int stride,
            int n, const DView<std::int32_t, Space>& out_count) {
  impl::xcount_impl(ctx, prefix + "xcount", pts, stride, n, DView<std::int32_t, Space>(), DView<std::int32_t, Space>(),
                    out_count);
}

template <class Space>
void xcount(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts, int stride,
            const DView<std::int32_t, Space>& count, const DView<std::int32_t, Space>& out_count) {
  impl::xcount_impl(ctx, prefix + "xcount", pts, stride, 0, count, DView<std::int32_t, Space>(), out_count);
}

template <class Space>
void xcount_selected(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts,
                     int stride, int n, const DView<std::int32_t, Space>& active,
                     const DView<std::int32_t, Space>& out_count) {
  impl::xcount_impl(ctx, prefix + "xcount_selected", pts, stride, n, DView<std::int32_t, Space>(), active, out_count);
}

template <class Space>
void sort_by_angle(const LaunchContext<Space>& ctx, const std::string& label, const DView<std::int32_t, Space>& count,
                   const DView<Vec2f, Space>& raw, const DView<std::uint64_t, Space>& keys,
                   const DView<Vec2f, Space>& sorted, int stride) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const std::size_t S = static_cast<std::size_t>(stride);
  ctx.for_each_team(
      label, static_cast<int>(count.extent(0)), 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t base = static_cast<std::size_t>(team.league_rank()) * S;
        const int m = kmath::clamp(count(team.league_rank()), 1, stride);
        const Vec2f* p = raw.data() + base;
        std::uint64_t* k = keys.data() + base;
        // m is at most max_num_points: one thread computes the keys (the
        // centroid sum runs in index order).
        Kokkos::single(Kokkos::PerTeam(team), [&]() { angle_sort_keys(p, m, k); });
        compat::team_sort(team, k, m);  // barriers before and after
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, stride),
                             [&](const int i) { sorted(base + i) = i < m ? p[compat::sort_key_index(k[i])] : nan2(); });
      });
}

template <class Space>
void closed_curve_dense(const LaunchContext<Space>& ctx, const std::string& label, const DenseSampling& sampling,
                        const ControlLoops<Space>& loops, const DView<std::int32_t, Space>& active,
                        const DView<Vec2f, Space>& dense) {
  const int npseg = sampling.npseg, ctrl_stride = loops.stride;
  const std::size_t R = static_cast<std::size_t>(sampling.segments) * npseg;
  const std::size_t CS = static_cast<std::size_t>(ctrl_stride);
  const auto ctrl = loops.points;
  const auto count = loops.count;
  const bool fixed = count.extent(0) == 0;
  const bool all = active.extent(0) == 0;
  const bool linear = sampling.curve == ClosedCurve::linear;
  const float den = static_cast<float>(sampling.include_end ? npseg - 1 : npseg);
  const std::size_t num_envs = R > 0 ? dense.extent(0) / R : 0;
  if constexpr (detail::is_host_space<Space>()) {
    // Thread per env: each segment's end points (and Catmull-Rom
    // coefficients) shared by its samples, the same floats per sample.
    const int segments = sampling.segments;
    ctx.for_each(
        label, num_envs, KOKKOS_LAMBDA(const std::size_t e) {
          if (!all && active(e) <= 0) return;
          const int n = fixed ? ctrl_stride : kmath::clamp(count(e), 0, ctrl_stride);
          const Vec2f* c = ctrl.data() + e * CS;
          Vec2f* out = dense.data() + e * R;
          for (int i = 0; i < segments; ++i) {
            Vec2f* o = out + static_cast<std::size_t>(i) * npseg;
            if (n < 2 || i >= n) {
              for (int s = 0; s < npseg; ++s) o[s] = nan2();
              continue;
            }
            const Vec2f p1 = c[i], p2 = c[i + 1 < n ? i + 1 : 0];
            if (linear) {
              for (int s = 0; s < npseg; ++s) {
                const float u = static_cast<float>(s) / den;
                o[s] = (1.0f - u) * p1 + u * p2;
              }
            } else {
              const CatmullRom seg(c[i > 0 ? i - 1 : n - 1], p1, p2, c[i + 2 < n ? i + 2 : i + 2 - n]);
              for (int s = 0; s < npseg; ++s) o[s] = seg.at(static_cast<float>(s) / den);
            }
          }
        });
    return;
  }
  ctx.for_each(
      label, num_envs * R, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / R;
        if (!all && active(e) <= 0) return;
        const int r = static_cast<int>(t % R);
        const int i = r / npseg, s = r % npseg;
        const int n = fixed ? ctrl_stride : kmath::clamp(count(e), 0, ctrl_stride);
        if (n < 2 || i >= n) {
          dense(t) = nan2();
          return;
        }
        const Vec2f* c = ctrl.data() + e * CS;
        const float u = static_cast<float>(s) / den;
        const Vec2f p1 = c[i], p2 = c[i + 1 < n ? i + 1 : 0];
        if (linear) {
          dense(t) = (1.0f - u) * p1 + u * p2;
        } else {
          dense(t) = catmull_rom(c[i > 0 ? i - 1 : n - 1], p1, p2, c[i + 2 < n ? i + 2 : i + 2 - n], u);
        }
      });
}

template <class Space>
void normalize_bbox(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts,
                    int stride, int n, float target) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  using MinMaxF = Kokkos::MinMaxScalar<float>;
  const std::size_t S = static_cast<std::size_t>(stride);
  const int num_envs = stride > 0 ? static_cast<int>(pts.extent(0) / S) : 0;
  if constexpr (detail::is_host_space<Space>()) {
    // Thread per env: the box in point order (the order of a team of one),
    // both coordinates in one pass, then the transform.
    ctx.for_each(
        prefix + "normalize", static_cast<std::size_t>(num_envs),
        KOKKOS_LAMBDA(const std::size_t e) { normalize_env_host(pts.data() + e * S, n, target); });
    return;
  }
  ctx.for_each_team(
      prefix + "normalize", num_envs, 0, KOKKOS_LAMBDA(const member_type& team) {
        Vec2f* p = pts.data() + static_cast<std::size_t>(team.league_rank()) * S;
        MinMaxF bx{}, by{};
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, n),
            [&](const int i, MinMaxF& v) {
              const Vec2f q = p[i];
              if (!is_finite(q)) return;
              v.min_val = kmath::min(v.min_val, q.x);
              v.max_val = kmath::max(v.max_val, q.x);
            },
            Kokkos::MinMax<float>(bx));
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, n),
            [&](const int i, MinMaxF& v) {
              const Vec2f q = p[i];
              if (!is_finite(q)) return;
              v.min_val = kmath::min(v.min_val, q.y);
              v.max_val = kmath::max(v.max_val, q.y);
            },
            Kokkos::MinMax<float>(by));
        team.team_barrier();
        const Vec2f c{(bx.min_val + bx.max_val) / 2.0f, (by.min_val + by.max_val) / 2.0f};
        const float extent = kmath::max(bx.max_val - bx.min_val, by.max_val - by.min_val);
        const float s = target / kmath::max(extent, 1e-8f);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { p[i] = (p[i] - c) * s; });
      });
}

template <class Space>
void fill_valid(const LaunchContext<Space>& ctx, const std::string& prefix,
                const DView<std::int32_t, Space>& out_valid) {
  ctx.for_each(
      prefix + "valid", out_valid.extent(0), KOKKOS_LAMBDA(const std::size_t e) { out_valid(e) = 1; });
}

#define TRACKGEN_INSTANTIATE_GEN_COMMON(S)                                                                             \
  template struct ArcScratch<S>;                                                                                       \
  template void arc_resample<S>(const LaunchContext<S>&, const std::string&, const DView<Vec2f, S>&,                   \
                                const DView<Vec2f, S>&, int, const ArcScratch<S>&);                                    \
  template void arc_resample_selected<S>(const LaunchContext<S>&, const std::string&, const DView<Vec2f, S>&,          \
                                         const DView<Vec2f, S>&, int, const DView<std::int32_t, S>&,                   \
                                         const ArcScratch<S>&);                                                        \
  template void xcount<S>(const LaunchContext<S>&, const std::string&, const DView<Vec2f, S>&, int, int,               \
                          const DView<std::int32_t, S>&);                                                              \
  template void xcount<S>(const LaunchContext<S>&, const std::string&, const DView<Vec2f, S>&, int,                    \
                          const DView<std::int32_t, S>&, const DView<std::int32_t, S>&);                               \
  template void xcount_selected<S>(const LaunchContext<S>&, const std::string&, const DView<Vec2f, S>&, int, int,      \
                                   const DView<std::int32_t, S>&, const DView<std::int32_t, S>&);                      \
  template void sort_by_angle<S>(const LaunchContext<S>&, const std::string&, const DView<std::int32_t, S>&,           \
                                 const DView<Vec2f, S>&, const DView<std::uint64_t, S>&, const DView<Vec2f, S>&, int); \
  template void closed_curve_dense<S>(const LaunchContext<S>&, const std::string&, const DenseSampling&,             \
                                      const ControlLoops<S>&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&);  \
  template void normalize_bbox<S>(const LaunchContext<S>&, const std::string&, const DView<Vec2f, S>&, int, int,       \
                                  float);                                                                              \
  template void fill_valid<S>(const LaunchContext<S>&, const std::string&, const DView<std::int32_t, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_GEN_COMMON)

}  // namespace trackgen::detail

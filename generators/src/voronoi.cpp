// The `voronoi` centerline generator (docs/algorithms.md#voronoi, site field /
// angular-snap graph cycle): S random sites in one of four layouts, K anchors
// advancing counter-clockwise with a harmonic radius profile, each snapped to
// the cheapest unused site, one Chaikin pass, a closed Catmull-Rom spline, arc
// resample to N and NORM(1.44 * scale); envs whose spline crosses itself take
// the linear Chaikin loop, then every env is normalized again.
#include <trackgen/generators/detail/voronoi.hpp>

namespace trackgen::detail {

namespace {
constexpr float box_side = 2.0f;  ///< L, the side of the square the sites are drawn in
}  // namespace

VoronoiParams VoronoiParams::from_config(const TrackGenConfig& c) {
  VoronoiParams p;
  p.num_envs = c.num_envs;
  p.num_points = c.num_points;
  p.num_sites = c.voronoi_num_sites;
  p.num_anchors = c.voronoi_control_points;
  p.npseg = c.num_points_per_segment;
  p.layout = c.voronoi_site_layout;
  const float boost = p.layout == VoronoiLayout::void_ring   ? 1.10f
                      : p.layout == VoronoiLayout::clustered ? 1.16f
                      : p.layout == VoronoiLayout::mixed     ? 1.06f
                                                             : 1.00f;
  p.amplitude = kmath::clamp(c.voronoi_radial_variation * boost, 0.0f, 0.85f);
  p.angular_jitter = c.voronoi_angular_jitter;
  p.target = normalized_extent * c.scale;
  return p;
}

template <class Space>
void voronoi_sites(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                   const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& sites,
                   const DView<Vec2f, Space>& site_polar, const DView<std::int32_t, Space>& used) {
  const int S = p.num_sites;
  const VoronoiLayout layout = p.layout;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        constexpr float L = box_side;
        constexpr float rmin = 0.14f * L, rmax = 0.52f * L;
        std::uint32_t st = stream(seeds(e), salt::voronoi_sites);
        const float cluster_phase = geom::two_pi_f * randf(st);
        const float cluster_radial = 0.24f * L + 0.10f * L * randf(st);
        const std::size_t base = e * static_cast<std::size_t>(S);
        for (int i = 0; i < S; ++i) {
          bool annulus = false;
          bool placed = false;
          Vec2f site{0.0f, 0.0f};
          if (layout == VoronoiLayout::clustered) {
            const int cluster = kmath::min(static_cast<int>(kmath::floor(6.0f * randf(st))), 5);
            const float ctheta = cluster_phase + geom::two_pi_f * static_cast<float>(cluster) / 6.0f;
            const float cr = cluster_radial * (0.82f + 0.30f * randf(st));
            const Vec2f centre{cr * kmath::cos(ctheta), cr * kmath::sin(ctheta)};
            const float theta = geom::two_pi_f * randf(st);
            const float noise_r = 0.025f * L + 0.080f * L * randf(st);
            const Vec2f q = centre + noise_r * Vec2f{kmath::cos(theta), kmath::sin(theta)};
            if (randf(st) < 0.22f) {
              annulus = true;  // fall through to the annulus draw
            } else {
              site = Vec2f{kmath::clamp(q.x, -L / 2.0f, L / 2.0f), kmath::clamp(q.y, -L / 2.0f, L / 2.0f)};
              placed = true;
            }
          } else if (layout == VoronoiLayout::void_ring) {
            annulus = true;
          } else if (layout == VoronoiLayout::mixed) {
            annulus = randf(st) < 0.65f;
          }
          if (!placed) {
            if (annulus) {
              const float theta = geom::two_pi_f * randf(st);
              const float r = kmath::sqrt(rmin * rmin + randf(st) * (rmax * rmax - rmin * rmin));
              site = Vec2f{r * kmath::cos(theta), r * kmath::sin(theta)};
            } else {
              const float x = (2.0f * randf(st) - 1.0f) * L / 2.0f;
              const float y = (2.0f * randf(st) - 1.0f) * L / 2.0f;
              site = Vec2f{x, y};
            }
          }
          sites(base + i) = site;
          site_polar(base + i) = Vec2f{kmath::atan2(site.y, site.x), length(site)};
          used(base + i) = 0;
        }
      });
}

template <class Space>
void voronoi_targets(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                     const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& targets) {
  const int K = p.num_anchors;
  const float A = p.amplitude, aj = p.angular_jitter;
  const float sigma = geom::two_pi_f / static_cast<float>(K);
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        constexpr float L = box_side;
        std::uint32_t st = stream(seeds(e), salt::voronoi_anchors);
        const float rotation = geom::two_pi_f * randf(st);
        float phi[4];
        for (float& f : phi) f = geom::two_pi_f * randf(st);
        Vec2f* t = targets.data() + e * static_cast<std::size_t>(K);
        for (int i = 0; i < K; ++i) {
          const float jit = (2.0f * randf(st) - 1.0f) * aj;
          const float theta = rotation + sigma * static_cast<float>(i) + jit;
          const float prof = (0.62f * kmath::sin(2.0f * theta + phi[0]) + 0.44f * kmath::cos(3.0f * theta + phi[1]) +
                              0.26f * kmath::sin(5.0f * theta + phi[2]) + 0.18f * kmath::cos(7.0f * theta + phi[3])) /
                             1.5f;
          const float r_t = kmath::clamp(0.34f * L * (1.0f + A * prof), 0.16f * L, 0.52f * L);
          t[i] = Vec2f{theta, r_t};
        }
      });
}

template <class Space>
void voronoi_anchors(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                     const DView<Vec2f, Space>& sites, const DView<Vec2f, Space>& site_polar,
                     const DView<std::int32_t, Space>& used, const DView<Vec2f, Space>& targets,
                     const DView<std::int32_t, Space>& anchor_site, const DView<Vec2f, Space>& selected) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int S = p.num_sites, K = p.num_anchors;
  const float sigma = geom::two_pi_f / static_cast<float>(K);
  const float ang_scale = kmath::max(sigma, 1e-6f);
  const float rad_scale = kmath::max(0.13f * box_side, 1e-6f);
  ctx.for_each_team(
      label, p.num_envs, 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t e = static_cast<std::size_t>(team.league_rank());
        const Vec2f* pol = site_polar.data() + e * S;
        std::int32_t* u = used.data() + e * S;
        for (int i = 0; i < K; ++i) {
          const Vec2f t = targets(e * K + i);
          std::uint64_t best = ~std::uint64_t(0);
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, S),
              [&](const int j, std::uint64_t& acc) {
                const Vec2f q = pol[j];
                const float d = q.x - t.x;
                const float radial = kmath::fabs(q.y - t.y) / rad_scale;
                const float penalty = u[j] != 0 ? 1000.0f : 0.0f;
                // Exact pruning. dw, d wrapped by arithmetic, is within a few
                // 1e-7 of wrap_angle(d) = atan2(sin d, cos d), so
                // lo = max(|dw| - 1e-4, 0) <= |wrap_angle(d)|; rounding is
                // monotone, so bound = (lo / ang_scale + radial) + penalty <= cost,
                // the same expression with |wrap_angle(d)|. A site whose bound
                // already loses to this thread's best cannot win or tie:
                // skipping it leaves the minimum unchanged and saves the sin,
                // cos and atan2 of almost every site.
                const float dw = d - geom::two_pi_f * kmath::floor(d / geom::two_pi_f + 0.5f);
                const float lo = kmath::max(kmath::fabs(dw) - 1e-4f, 0.0f);
                if (compat::sort_key(lo / ang_scale + radial + penalty, j) > acc) return;
                const float cost = kmath::fabs(geom::wrap_angle(d)) / ang_scale + radial + penalty;
                const std::uint64_t k = compat::sort_key(cost, j);
                if (k < acc) acc = k;
              },
              Kokkos::Min<std::uint64_t>(best));
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            const int j = compat::sort_key_index(best);
            u[j] = 1;
            anchor_site(e * K + i) = j;
            selected(e * K + i) = sites(e * S + j);
          });
          team.team_barrier();  // the next anchor sees the mark
        }
      });
}

/// Step 3, thread per Chaikin point: aug[2i] = 3/4 p_i + 1/4 p_{i+1},
/// aug[2i+1] = 1/4 p_i + 3/4 p_{i+1} (indices mod K).
template <class Space>
void voronoi_chaikin(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                     const DView<Vec2f, Space>& selected, const DView<Vec2f, Space>& aug) {
  const int K = p.num_anchors, A = p.aug_stride();
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs) * A, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / A;
        const int a = static_cast<int>(t % A);
        const int i = a / 2;
        const Vec2f p0 = selected(e * K + i), p1 = selected(e * K + (i + 1 < K ? i + 1 : 0));
        aug(t) = (a % 2 == 0) ? 0.75f * p0 + 0.25f * p1 : 0.25f * p0 + 0.75f * p1;
      });
}

template <class Space>
VoronoiGenerator<Space>::VoronoiGenerator(const Space& space, const TrackGenConfig& config)
    : Base("voronoi", VoronoiParams::from_config(config)) {
  allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, this->name_);
}

template <class Space>
template <class F>
void VoronoiGenerator<Space>::scratch_plan(const VoronoiParams& p, F&& f) {
  const std::size_t E = p.num_envs, S = p.num_sites, K = p.num_anchors, A = p.aug_stride(), D = p.dense_stride();
  f("sites", TRACKGEN_MEMBER(sites_), E * S);
  f("site_polar", TRACKGEN_MEMBER(site_polar_), E * S);
  f("used", TRACKGEN_MEMBER(used_), E * S);
  f("targets", TRACKGEN_MEMBER(targets_), E * K);
  f("anchor_site", TRACKGEN_MEMBER(anchor_site_), E * K);
  f("selected", TRACKGEN_MEMBER(selected_), E * K);
  f("aug", TRACKGEN_MEMBER(aug_), E * A);
  f("dense", TRACKGEN_MEMBER(dense_), E * D);
  f("crossers", TRACKGEN_MEMBER(crossers_), E);
  f("arc", TRACKGEN_MEMBER(arc_), E, D);
}

template <class Space>
void VoronoiGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                       const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  const std::string& x = prefix_;
  const int A = p_.aug_stride(), N = p_.num_points, npseg = p_.npseg;
  const IntView all;  // extent 0: every env
  const ControlLoops<Space> chaikin{aug_, A, IntView()};  // every env has A points
  voronoi_sites(ctx, x + "sites", p_, seeds, sites_, site_polar_, used_);
  voronoi_targets(ctx, x + "targets", p_, seeds, targets_);
  voronoi_anchors(ctx, x + "anchors", p_, sites_, site_polar_, used_, targets_, anchor_site_, selected_);
  voronoi_chaikin(ctx, x + "chaikin", p_, selected_, aug_);
  // Step 4: dense closed Catmull-Rom over the 2K Chaikin points, u = s/npseg.
  closed_curve_dense(ctx, x + "spline", {ClosedCurve::catmull_rom, A, npseg, false}, chaikin, all, dense_);
  arc_resample(ctx, x, dense_, out_centerline, N, arc_);
  normalize_bbox(ctx, x, out_centerline, N, N, p_.target);
  xcount(ctx, x, out_centerline, N, N, crossers_);
  // Step 6: the linear Chaikin loop for the crossers, then NORM on every env.
  closed_curve_dense(ctx, x + "fallback", {ClosedCurve::linear, A, npseg, false}, chaikin, crossers_, dense_);
  arc_resample_selected(ctx, x, dense_, out_centerline, N, crossers_, arc_);
  normalize_bbox(ctx, x, out_centerline, N, N, p_.target);
  fill_valid(ctx, x, out_valid);
}

template <class Space>
std::size_t VoronoiGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const VoronoiParams p = VoronoiParams::from_config(config);
  return plan_bytes<VoronoiGenerator>([&](auto&& f) { scratch_plan(p, f); });
}

template <class Space>
std::size_t VoronoiGenerator<Space>::device_bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
}

#define TRACKGEN_INSTANTIATE_VORONOI(S) \
  template class VoronoiGenerator<S>; \
  template void voronoi_sites<S>(const LaunchContext<S>&, const std::string&, const VoronoiParams&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&); \
  template void voronoi_targets<S>(const LaunchContext<S>&, const std::string&, const VoronoiParams&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&); \
  template void voronoi_anchors<S>(const LaunchContext<S>&, const std::string&, const VoronoiParams&, const DView<Vec2f, S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_VORONOI)

}  // namespace trackgen::detail

// The `checkpoint` centerline generator (docs/algorithms.md#checkpoint, CarRacing-style
// steering): K candidate rings of C jittered checkpoints per env, a bounded-turn
// steering walk through each, an additive heading-ramp closure, the candidate
// with the fewest self-crossings, an optional clip at the first crossing, and
// NORM(1.44 * scale). Counter-clockwise by construction.
//
// Precision: geometry is float as in the original system (checkpoints, the walk's
// position and heading, which a feedback loop keeps on course); the sums that
// must not drift are double: the ring perimeter, the closure's turning sum S,
// its cumulative headings phi_i, the mean edge, the cumulative positions q_i and
// their centroid (N = 256 float additions would otherwise leave a closure gap
// of float-rounding size at the end of the loop), and the clip's loop lengths.
#include <trackgen/generators/detail/checkpoint.hpp>

namespace trackgen::detail {

CheckpointParams CheckpointParams::from_config(const TrackGenConfig& c) {
  CheckpointParams p;
  p.num_envs = c.num_envs;
  p.num_points = c.num_points;
  p.num_checkpoints = c.checkpoint_count;
  p.num_candidates = c.checkpoint_best_of_k;
  p.clip = c.checkpoint_clip_fallback;
  p.radius_min_frac = c.checkpoint_radius_min_frac;
  p.angle_jitter = c.checkpoint_angle_jitter;
  p.turn_rate = c.checkpoint_turn_rate;
  p.steer_gain = c.checkpoint_steer_gain;
  p.lookahead_frac = c.checkpoint_lookahead_frac;
  p.target = normalized_extent * c.scale;
  return p;
}

template <class Space>
void checkpoint_rings(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p,
                      const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& checkpoints) {
  const int C = p.num_checkpoints, K = p.num_candidates;
  const float sigma = geom::two_pi_f / static_cast<float>(C);
  const float rmin = p.radius_min_frac * 1.0f, jitter = p.angle_jitter;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_slots()), KOKKOS_LAMBDA(const std::size_t slot) {
        const std::size_t e = slot / K;
        const int k = static_cast<int>(slot % K);
        const std::int32_t offset = salted(k, salt::checkpoint_candidate_step);  // k * 2741, int32 wrap
        std::uint32_t st = stream(seeds(e), salt::checkpoint_ring, offset);
        Vec2f* cp = checkpoints.data() + slot * C;
        for (int c = 0; c < C; ++c) {
          const float jit = (2.0f * randf(st) - 1.0f) * jitter * sigma;
          const float r = rmin + randf(st) * (1.0f - rmin);
          const float theta = static_cast<float>(c) * sigma + jit;
          cp[c] = Vec2f{r * kmath::cos(theta), r * kmath::sin(theta)};
        }
      });
}

/// True when one of candidates 0..k-1 of the env whose candidate 0 is at slot
/// `first` is crossing-free: it wins every tie, so candidate k is never selected
/// and need not be built or counted.
template <class IntView>
KOKKOS_INLINE_FUNCTION bool earlier_crossing_free(const IntView& crossings, std::size_t first, int k) {
  for (int j = 0; j < k; ++j) {
    if (crossings(first + j) == 0) return true;
  }
  return false;
}

/// Step 2, thread per env for candidate k (slot e*K + k; skipped when an
/// earlier candidate is crossing-free): the steering walk of N steps of length
/// dl = perimeter(ring) / N from checkpoint 0, heading first towards
/// checkpoint 1; the target advances (at most once per step) when closer than
/// lookahead_frac * R; the heading turns by clamp(gain * wrap(bearing - theta),
/// -turn_rate, turn_rate). rows[slot*N + i] = the position before step i.
template <class Space>
void checkpoint_walk(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p, int k,
                     const DView<Vec2f, Space>& checkpoints, const DView<std::int32_t, Space>& crossings,
                     const DView<Vec2f, Space>& rows) {
  const int C = p.num_checkpoints, N = p.num_points, K = p.num_candidates;
  const float lookahead = p.lookahead_frac * 1.0f, gain = p.steer_gain, turn = p.turn_rate;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        if (earlier_crossing_free(crossings, e * K, k)) return;
        const std::size_t slot = e * K + k;  // e for K == 1: the output's row
        const Vec2f* cp = checkpoints.data() + slot * C;
        Vec2f* path = rows.data() + slot * N;
        double ring = 0.0;
        for (int c = 0; c < C; ++c) ring += static_cast<double>(length(cp[c + 1 < C ? c + 1 : 0] - cp[c]));
        const float dl = static_cast<float>(ring) / static_cast<float>(N);
        Vec2f pos = cp[0];
        float theta = kmath::atan2(cp[1].y - cp[0].y, cp[1].x - cp[0].x);
        int t = 1;
        for (int i = 0; i < N; ++i) {
          path[i] = pos;
          if (length(cp[t % C] - pos) < lookahead) ++t;
          const Vec2f d = cp[t % C] - pos;
          const float err = geom::wrap_angle(kmath::atan2(d.y, d.x) - theta);
          theta += kmath::clamp(gain * err, -turn, turn);
          pos += dl * Vec2f{kmath::cos(theta), kmath::sin(theta)};
        }
      });
}

/// Step 3, thread per slot, in place: the additive heading-ramp closure.
/// Edges e_i = path_{i+1 mod N} - path_i, theta_i = atan2(e_i), Delta_0 = 0,
/// Delta_i = wrap(theta_i - theta_{i-1}); delta = (2 pi - sum Delta) / N;
/// phi_i = sum_{k<=i} (Delta_k + delta) - delta; w_i = (cos phi_i, sin phi_i) / N;
/// q_i = sum_{k<=i} (w_k - mean w), minus the centroid of the q. Four passes over
/// the row, each overwriting entry i only once it is no longer read: Delta_i,
/// then w_i, then q_i, then q_i - centroid. Thread per env for candidate k,
/// skipped as the walk.
template <class Space>
void checkpoint_closure(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p, int k,
                        const DView<std::int32_t, Space>& crossings, const DView<Vec2f, Space>& rows) {
  const int N = p.num_points, K = p.num_candidates;
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        if (earlier_crossing_free(crossings, e * K, k)) return;
        Vec2f* q = rows.data() + (e * K + k) * N;
        const Vec2f first = q[0];
        // Pass 1: Delta_i into q[i].x (edge i reads q[i], q[i+1]; the last edge
        // reads the saved first point).
        double turning = 0.0;
        float prev = 0.0f;
        for (int i = 0; i < N; ++i) {
          const Vec2f a = q[i], b = i + 1 < N ? q[i + 1] : first;
          const float th = kmath::atan2(b.y - a.y, b.x - a.x);
          const float d = i == 0 ? 0.0f : geom::wrap_angle(th - prev);
          prev = th;
          q[i].x = d;
          turning += static_cast<double>(d);
        }
        const double delta = (2.0 * geom::pi_d - turning) / static_cast<double>(N);
        // Pass 2: closed headings and unit-ds edges w_i.
        const float inv_n = 1.0f / static_cast<float>(N);
        double phi_sum = 0.0, wx = 0.0, wy = 0.0;
        for (int i = 0; i < N; ++i) {
          phi_sum += static_cast<double>(q[i].x) + delta;
          const float phi = static_cast<float>(phi_sum - delta);
          const Vec2f w = inv_n * Vec2f{kmath::cos(phi), kmath::sin(phi)};
          q[i] = w;
          wx += static_cast<double>(w.x);
          wy += static_cast<double>(w.y);
        }
        const double mx = wx / N, my = wy / N;
        // Pass 3: positions and their centroid.
        double px = 0.0, py = 0.0, cx = 0.0, cy = 0.0;
        for (int i = 0; i < N; ++i) {
          px += static_cast<double>(q[i].x) - mx;
          py += static_cast<double>(q[i].y) - my;
          q[i] = Vec2f{static_cast<float>(px), static_cast<float>(py)};
          cx += px;
          cy += py;
        }
        // Pass 4: centre.
        const Vec2f c{static_cast<float>(cx / N), static_cast<float>(cy / N)};
        for (int i = 0; i < N; ++i) q[i] = q[i] - c;
      });
}

/// Step 4 (K > 1), scoring of candidate k, one team per env: XCOUNT of the
/// candidate's loop into crossings[e*K + k] (team integer reduction, as the
/// shared xcount launcher), or -1 without counting when an earlier candidate of
/// the env has no crossing (it wins every tie, so candidate k cannot be
/// selected). Launched for k = 0..K-1 in order; the selection is the one of
/// the original system's XCOUNT of every candidate, at a fraction of the cost (most
/// first candidates are crossing-free).
template <class Space>
void checkpoint_score(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p, int k,
                      const DView<Vec2f, Space>& cand, const DView<std::int32_t, Space>& crossings) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int K = p.num_candidates, N = p.num_points;
  ctx.for_each_team(
      label, p.num_envs, xcount_team_size<Space>(), KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t slot = static_cast<std::size_t>(team.league_rank()) * K + k;
        const bool decided = earlier_crossing_free(crossings, slot - k, k);
        const int total = xcount_in_team<Space>(team, cand.data() + slot * N, decided ? 0 : N);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { crossings(slot) = decided ? -1 : total; });
      });
}

/// Step 4 (K > 1), thread per output point: the candidate with the fewest
/// crossings (ties: the lowest k; -1 marks candidates not counted, never
/// better than an earlier crossing-free one), copied into the output.
template <class Space>
void checkpoint_select(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p,
                       const DView<std::int32_t, Space>& crossings, const DView<Vec2f, Space>& cand,
                       const DView<Vec2f, Space>& out) {
  const int K = p.num_candidates;
  const std::size_t N = static_cast<std::size_t>(p.num_points);
  ctx.for_each(
      label, static_cast<std::size_t>(p.num_envs) * N, KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / N, i = t % N;
        int best = 0;
        std::int32_t fewest = crossings(e * K);
        for (int k = 1; k < K; ++k) {
          if (crossings(e * K + k) >= 0 && crossings(e * K + k) < fewest) {
            fewest = crossings(e * K + k);
            best = k;
          }
        }
        out(t) = cand((e * K + best) * N + i);
      });
}

/// Closed polyline length of P followed by the points q[idx(0..n)), double sum.
template <class Index>
KOKKOS_INLINE_FUNCTION double clip_loop_length(Vec2f P, const Vec2f* q, int n, const Index& idx) {
  double l = 0.0;
  Vec2f prev = P;
  for (int k = 0; k < n; ++k) {
    const Vec2f cur = q[idx(k)];
    l += static_cast<double>(length(cur - prev));
    prev = cur;
  }
  return l + static_cast<double>(length(P - prev));
}

/// Step 5 (clip), one team per env on the selected loop q = out[e*N, +N): the
/// first crossing pair (i ascending, then j > i ascending; adjacent pairs
/// skipped) as the team minimum of i*N + j over each i's first crossing j; then
/// one thread computes the intersection P (parallel segments: the midpoint of
/// the two segment starts), keeps the longer of the inner loop P, q[i+1..j] and
/// the outer loop P, q[j+1..N-1], q[0..i], writes it into clip[e*(N+2), +N+2)
/// NaN-padded and sets active[e] = 1; active[e] = 0 without a crossing.
template <class Space>
void checkpoint_clip(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p,
                     const DView<Vec2f, Space>& out, const DView<Vec2f, Space>& clip,
                     const DView<std::int32_t, Space>& active) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int N = p.num_points, M = N + 2;
  ctx.for_each_team(
      label, p.num_envs, 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t e = static_cast<std::size_t>(team.league_rank());
        const Vec2f* q = out.data() + e * N;
        constexpr std::int64_t none = ~(std::int64_t(1) << 63);
        std::int64_t first = none;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, N),
            [&](const int i, std::int64_t& acc) {
              if (std::int64_t(i) * N >= acc) return;  // cannot improve this thread's minimum
              const Vec2f ai = q[i], bi = q[i + 1 < N ? i + 1 : 0];
              const int jend = i == 0 ? N - 1 : N;
              for (int j = i + 2; j < jend; ++j) {
                if (geom::segments_cross_sign(ai, bi, q[j], q[j + 1 < N ? j + 1 : 0])) {
                  acc = kmath::min(acc, std::int64_t(i) * N + j);
                  break;
                }
              }
            },
            Kokkos::Min<std::int64_t>(first));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (first == none) {
            active(e) = 0;
            return;
          }
          const int i = static_cast<int>(first / N), j = static_cast<int>(first % N);
          const Vec2f ai = q[i], bi = q[i + 1 < N ? i + 1 : 0], aj = q[j], bj = q[j + 1 < N ? j + 1 : 0];
          const Vec2f r = bi - ai, s = bj - aj;
          const float den = cross(r, s);
          const Vec2f P = kmath::fabs(den) < 1e-12f ? (ai + aj) / 2.0f : ai + (cross(aj - ai, s) / den) * r;
          const int n_in = j - i, n_out = N - j + i;  // q[i+1..j]; q[j+1..N-1], q[0..i]
          const auto in_idx = [=](int k) { return i + 1 + k; };
          const auto out_idx = [=](int k) { return j + 1 + k < N ? j + 1 + k : j + 1 + k - N; };
          const bool inner = clip_loop_length(P, q, n_in, in_idx) > clip_loop_length(P, q, n_out, out_idx);
          Vec2f* c = clip.data() + e * M;
          c[0] = P;
          const int n = inner ? n_in : n_out;
          for (int k = 0; k < n; ++k) c[1 + k] = q[inner ? in_idx(k) : out_idx(k)];
          for (int k = 1 + n; k < M; ++k) c[k] = nan2();
          active(e) = 1;
        });
      });
}

template <class Space>
CheckpointGenerator<Space>::CheckpointGenerator(const Space& space, const TrackGenConfig& config)
    : Base("checkpoint", CheckpointParams::from_config(config)) {
  allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, this->name_);
}

template <class Space>
template <class F>
void CheckpointGenerator<Space>::scratch_plan(const CheckpointParams& p, F&& f) {
  const std::size_t E = p.num_envs, N = p.num_points, K = p.num_candidates, C = p.num_checkpoints;
  const bool multi = K > 1;
  f("checkpoints", TRACKGEN_MEMBER(checkpoints_), E * K * C);
  f("candidates", TRACKGEN_MEMBER(candidates_), multi ? E * K * N : 0);
  f("candidate_crossings", TRACKGEN_MEMBER(crossings_), multi ? E * K : 0);
  f("clip", TRACKGEN_MEMBER(clip_loops_), p.clip ? E * (N + 2) : 0);
  f("clip_active", TRACKGEN_MEMBER(clipped_), p.clip ? E : 0);
  if (p.clip) f("arc", TRACKGEN_MEMBER(arc_), E, N + 2);
}

template <class Space>
void CheckpointGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                          const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  const std::string& x = prefix_;
  const int N = p_.num_points;
  const bool multi = p_.num_candidates > 1;  // construction-time branch
  const Vec2View rows = multi ? candidates_ : out_centerline;
  checkpoint_rings(ctx, x + "checkpoints", p_, seeds, checkpoints_);
  for (int k = 0; k < p_.num_candidates; ++k) {
    checkpoint_walk(ctx, x + "walk", p_, k, checkpoints_, crossings_, rows);
    checkpoint_closure(ctx, x + "closure", p_, k, crossings_, rows);
    if (multi) checkpoint_score(ctx, x + "score", p_, k, candidates_, crossings_);
  }
  if (multi) checkpoint_select(ctx, x + "select", p_, crossings_, candidates_, out_centerline);
  if (p_.clip) {  // construction-time branch
    checkpoint_clip(ctx, x + "clip", p_, out_centerline, clip_loops_, clipped_);
    arc_resample_selected(ctx, x, clip_loops_, out_centerline, N, clipped_, arc_);
  }
  normalize_bbox(ctx, x, out_centerline, N, N, p_.target);
  fill_valid(ctx, x, out_valid);
}

template <class Space>
std::size_t CheckpointGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const CheckpointParams p = CheckpointParams::from_config(config);
  return plan_bytes<CheckpointGenerator>([&](auto&& f) { scratch_plan(p, f); });
}

template <class Space>
std::size_t CheckpointGenerator<Space>::device_bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
}

#define TRACKGEN_INSTANTIATE_CHECKPOINT(S) \
  template class CheckpointGenerator<S>; \
  template void checkpoint_rings<S>(const LaunchContext<S>&, const std::string&, const CheckpointParams&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_CHECKPOINT)

}  // namespace trackgen::detail

// The stages of the gate pipeline (see gate_stages.hpp and docs/algorithms.md#gates).
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/detail/loops.hpp>
#include <trackgen/pipeline/gate_stages.hpp>

namespace trackgen {
namespace {

/// Plan-view part (x, y) of a 3D point.
KOKKOS_INLINE_FUNCTION Vec2f plan(Vec3f p) { return {p.x, p.y}; }

/// Whether q lies in the bounding box of [a, b].
KOKKOS_INLINE_FUNCTION bool in_box(Vec2f a, Vec2f b, Vec2f q) {
  return kmath::min(a.x, b.x) <= q.x && q.x <= kmath::max(a.x, b.x) && kmath::min(a.y, b.y) <= q.y &&
         q.y <= kmath::max(a.y, b.y);
}

/// Whether the closed segments [a0, a1] and [b0, b1] share a point: a proper
/// crossing, or an end point on the other segment (touching and collinear
/// overlaps count, docs/differences.md#gates).
KOKKOS_INLINE_FUNCTION bool segments_meet(Vec2f a0, Vec2f a1, Vec2f b0, Vec2f b1) {
  const float d1 = geom::orient(b0, b1, a0), d2 = geom::orient(b0, b1, a1);
  const float d3 = geom::orient(a0, a1, b0), d4 = geom::orient(a0, a1, b1);
  if (((d1 > 0.0f && d2 < 0.0f) || (d1 < 0.0f && d2 > 0.0f)) &&
      ((d3 > 0.0f && d4 < 0.0f) || (d3 < 0.0f && d4 > 0.0f))) {
    return true;
  }
  return (d1 == 0.0f && in_box(b0, b1, a0)) || (d2 == 0.0f && in_box(b0, b1, a1)) ||
         (d3 == 0.0f && in_box(a0, a1, b0)) || (d4 == 0.0f && in_box(a0, a1, b1));
}

/// Cumulative chord lengths of one env's gates, read by z_random_walk.
struct ChordArcs {
  const float* cum;
  KOKKOS_INLINE_FUNCTION float operator()(int k) const { return cum[k]; }
};

/// The frame of one real gate from its raw tangent (docs/algorithms.md#gate-frames).
struct GateFrame {
  Vec3f tangent, forward, left_axis;
  Quatf orientation;
  bool fallback;
};
KOKKOS_INLINE_FUNCTION GateFrame gate_frame(Vec3f raw, bool full_tangent) {
  GateFrame g{};
  const Vec3f tan = geom::safe_norm3(raw);
  Vec3f fwd = full_tangent ? tan : Vec3f{tan.x, tan.y, 0.0f};
  g.fallback = fwd.x * fwd.x + fwd.y * fwd.y < 1e-10f;
  if (g.fallback) {
    fwd = Vec3f{tan.x, tan.y, 0.0f};
    if (fwd.x * fwd.x + fwd.y * fwd.y < 1e-10f) fwd = Vec3f{1.0f, 0.0f, 0.0f};
  }
  fwd = geom::safe_norm3(fwd);
  g.orientation = geom::frame_quat(fwd);
  // A level tangent of an upright gate: the left axis straight from the tangent.
  g.left_axis = (!full_tangent && tan.z == 0.0f) ? Vec3f{-tan.y, tan.x, 0.0f}
                                                 : geom::rotate(g.orientation, Vec3f{0.0f, 1.0f, 0.0f});
  g.forward = (!g.fallback && (full_tangent || tan.z == 0.0f)) ? tan : fwd;
  g.tangent = tan;
  return g;
}

}  // namespace

GateParams GateParams::from_config(const GateGenConfig& c, int anchor_stride, bool normalize) {
  GateParams p;
  p.num_envs = c.num_envs;
  p.max_gates = c.max_gates;
  p.anchor_stride = anchor_stride;
  p.min_gates = c.min_gates;
  p.ordering = c.gate_ordering;
  p.align = c.gate_align;
  p.normalize = normalize;
  p.norm_target = detail::normalized_extent * c.scale;
  p.sep_target = 2.0f * c.gate_radius;
  p.solve_iters = c.gate_solve_iters;
  p.gate_width = c.gate_width;
  p.half_size = 0.5f * c.gate_width;
  p.z = z_params(c.track_config());
  p.z_valid_grade = c.z_valid_grade;
  return p;
}

template <class Space>
void order_gates(const LaunchContext<Space>& ctx, const GateParams& p, const DView<std::int32_t, Space>& seeds,
                 const DView<Vec2f, Space>& anchors, const DView<std::uint64_t, Space>& sort_keys,
                 const DView<Vec2f, Space>& sorted, const DView<float, Space>& pair_keys,
                 const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& staging) {
  const int S = p.anchor_stride, G = p.max_gates;
  const GateOrdering ordering = p.ordering;
  if (ordering == GateOrdering::ccw)
    detail::sort_by_angle(ctx, "TrackGen::gates::sort", count, anchors, sort_keys, sorted, S);
  const auto src = ordering == GateOrdering::ccw ? sorted : anchors;
  ctx.for_each(
      "TrackGen::gates::order", static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const int m = kmath::clamp(count(e), 0, kmath::min(S, G));
        const Vec2f* a = src.data() + e * S;
        Vec2f* out = staging.data() + e * G;
        if (ordering == GateOrdering::random_pairs) {
          float* key = pair_keys.data() + e * S;
          const int pairs = (m + 1) / 2;
          for (int q = 0; q < pairs; ++q) {
            std::uint32_t st = stream(seeds(e), salt::gate_pairs, salted(q, salt::gate_pair_step));
            key[q] = randf(st) + static_cast<float>(q) * 1e-6f;
          }
          int k = 0;
          for (int round = 0; round < pairs; ++round) {
            int best = 0;
            for (int q = 1; q < pairs; ++q) best = key[q] < key[best] ? q : best;
            key[best] = 1e30f;
            out[k++] = a[2 * best];
            if (2 * best + 1 < m) out[k++] = a[2 * best + 1];
          }
        } else {
          for (int i = 0; i < m; ++i) out[i] = a[i];
        }
        for (int i = m; i < G; ++i) out[i] = nan2();
        count(e) = m;
      });
}

template <class Space>
void separate_gates(const LaunchContext<Space>& ctx, const GateParams& p, const DView<std::int32_t, Space>& count,
                    const DView<Vec2f, Space>& staging) {
  const float target = p.sep_target;
  const int iters = p.solve_iters, G = p.max_gates;
  if (iters <= 0 || !(target > 0.0f)) return;
  ctx.for_each(
      "TrackGen::gates::separate", static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const int n = kmath::clamp(count(e), 0, G);
        Vec2f* q = staging.data() + e * G;
        for (int it = 0; it < iters; ++it) {
          bool moved = false;
          for (int i = 0; i < n; ++i) {
            for (int j = i + 1; j < n; ++j) {
              const Vec2f d = q[j] - q[i];
              const float dist = length(d);
              if (!(dist + 1e-8f < target)) continue;
              Vec2f dir;
              if (dist > 1e-8f) {
                dir = d / dist;
              } else {
                const float a = 12.9898f * static_cast<float>(i + 1) + 78.233f * static_cast<float>(j + 1) +
                                37.719f * static_cast<float>(it + 1) + 19.371f * static_cast<float>(e + 1);
                dir = Vec2f{kmath::cos(a), kmath::sin(a)};
              }
              const Vec2f c = 0.5f * (target - dist) * dir;
              q[i] -= c;
              q[j] += c;
              moved = true;
            }
          }
          if (!moved) break;
        }
      });
}

template <class Space>
void lift_gates(const LaunchContext<Space>& ctx, const GateParams& p, const DView<std::int32_t, Space>& seeds,
                const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& staging,
                const DView<float, Space>& cum, const DView<float, Space>& z, const DView<Vec3f, Space>& position) {
  const int G = p.max_gates;
  const ZParams zp = p.z;
  ctx.for_each(
      "TrackGen::gates::lift", static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const int n = kmath::clamp(count(e), 0, G);
        const Vec2f* q = staging.data() + e * G;
        float* c = cum.data() + e * G;
        float* h = z.data() + e * G;
        double acc = 0.0;
        for (int i = 0; i < n; ++i) {
          if (i > 0) acc += static_cast<double>(length(q[i] - q[i - 1]));
          c[i] = static_cast<float>(acc);
        }
        const float perim = n > 0 ? static_cast<float>(acc + static_cast<double>(length(q[0] - q[n - 1]))) : 0.0f;
        const std::int32_t seed = seeds(e);
        if (zp.profile == ZProfile::random_walk) z_random_walk(seed, n, perim, zp, ChordArcs{c}, h);
        for (int i = 0; i < n; ++i) {
          if (zp.profile == ZProfile::flat) h[i] = zp.base;
          if (zp.profile == ZProfile::uniform) h[i] = z_uniform_knot(seed, i, zp);
          if (zp.profile == ZProfile::noise) h[i] = z_noise(seed, c[i], perim, zp);
          position(e * G + i) = Vec3f{q[i].x, q[i].y, h[i]};
        }
        for (int i = n; i < G; ++i) position(e * G + i) = nan3();
      });
}

template <class Space>
void gate_frames(const LaunchContext<Space>& ctx, const GateParams& p,
                 const GateSequence<typename Space::memory_space>& seq, const DView<std::int32_t, Space>& fallbacks) {
  const int G = p.max_gates;
  const bool full = p.align == GateAlign::full_tangent;
  const float hs = p.half_size;
  const auto s = seq;
  ctx.for_each(
      "TrackGen::gates::frames", static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        const int n = kmath::clamp(s.count(e), 0, G);
        const std::size_t b = e * G;
        int fell_back = 0;
        for (int i = 0; i < G; ++i) {
          const std::size_t k = b + i;
          if (i >= n) {
            s.tangent(k) = s.forward(k) = s.left(k) = s.right(k) = nan3();
            s.orientation(k) = nan_quat();
            s.half_size(k) = nanf();
            continue;
          }
          Vec3f raw{0.0f, 0.0f, 0.0f};
          if (n == 2) raw = s.position(b + (1 - i)) - s.position(k);
          if (n > 2) raw = s.position(b + (i + 1) % n) - s.position(b + (i + n - 1) % n);
          const GateFrame f = gate_frame(raw, full);
          fell_back += f.fallback ? 1 : 0;
          const Vec3f pos = s.position(k);
          s.tangent(k) = f.tangent;
          s.forward(k) = f.forward;
          s.orientation(k) = f.orientation;
          s.half_size(k) = hs;
          s.left(k) = pos + hs * f.left_axis;
          s.right(k) = pos - hs * f.left_axis;
        }
        fallbacks(e) = fell_back;
      });
}

template <class Space>
void gate_validity(const LaunchContext<Space>& ctx, const GateParams& p,
                   const GateSequence<typename Space::memory_space>& seq) {
  const int G = p.max_gates, min_gates = p.min_gates;
  const float t2 = p.sep_target * p.sep_target;
  const float slop = 1e-6f * kmath::max(1.0f, t2);
  const bool bars = p.gate_width > 0.0f;
  const float grade = p.z_valid_grade;
  const auto s = seq;
  ctx.for_each(
      "TrackGen::gates::validity", static_cast<std::size_t>(s.count.extent(0)), KOKKOS_LAMBDA(const std::size_t e) {
        const int n = s.count(e);
        const std::size_t b = e * G;
        bool ok = n >= min_gates && n <= G;
        for (int i = 0; ok && i < n; ++i) {
          const std::size_t k = b + i;
          ok = is_finite(s.position(k)) && is_finite(s.tangent(k)) && is_finite(s.forward(k)) &&
               is_finite(s.orientation(k)) && kmath::isfinite(s.half_size(k)) && is_finite(s.left(k)) &&
               is_finite(s.right(k)) && dot(s.tangent(k), s.tangent(k)) > 1e-12f;
        }
        for (int i = 0; ok && i < n; ++i) {
          const Vec2f pi = plan(s.position(b + i));
          for (int j = i + 1; ok && j < n; ++j) {
            ok = length_sq(plan(s.position(b + j)) - pi) + slop >= t2;
            ok = ok && !(bars && segments_meet(plan(s.left(b + i)), plan(s.right(b + i)), plan(s.left(b + j)),
                                               plan(s.right(b + j))));
          }
        }
        for (int i = 0; ok && grade > 0.0f && i < n; ++i) {
          const Vec3f a = s.position(b + i), c = s.position(b + (i + 1) % n);
          ok = kmath::fabs(c.z - a.z) <= grade * kmath::max(length(plan(c) - plan(a)), 1e-9f);
        }
        s.valid(e) = ok ? 1 : 0;
      });
}

#define TRACKGEN_INSTANTIATE_GATE_STAGES(S)                                                                    \
  template void order_gates<S>(const LaunchContext<S>&, const GateParams&, const DView<std::int32_t, S>&,      \
                               const DView<Vec2f, S>&, const DView<std::uint64_t, S>&, const DView<Vec2f, S>&, \
                               const DView<float, S>&, const DView<std::int32_t, S>&, const DView<Vec2f, S>&); \
  template void separate_gates<S>(const LaunchContext<S>&, const GateParams&, const DView<std::int32_t, S>&,   \
                                  const DView<Vec2f, S>&);                                                     \
  template void lift_gates<S>(const LaunchContext<S>&, const GateParams&, const DView<std::int32_t, S>&,       \
                              const DView<std::int32_t, S>&, const DView<Vec2f, S>&, const DView<float, S>&,   \
                              const DView<float, S>&, const DView<Vec3f, S>&);                                 \
  template void gate_frames<S>(const LaunchContext<S>&, const GateParams&,                                     \
                               const GateSequence<typename S::memory_space>&, const DView<std::int32_t, S>&);  \
  template void gate_validity<S>(const LaunchContext<S>&, const GateParams&,                                   \
                                 const GateSequence<typename S::memory_space>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_GATE_STAGES)

}  // namespace trackgen

// TrackLocalizer (see localizer.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/geometry.hpp>
#include <trackgen/runtime/localizer.hpp>

#include <cmath>
#include <limits>

namespace trackgen {
namespace {

/// The nearest centerline point found by a search.
struct Nearest {
  float d2 = 3.0e38f;
  int segment = -1;
  float u = 0.0f;
};

template <class Space>
struct Localize {
  Track<typename Space::memory_space> track;
  DView<Vec3f, Space> position;
  DView<std::int32_t, Space> last;
  TrackFrame<Space> out;
  int window = 0;
  float relock = 0;
  /// How many envs ahead a warm query prefetches its window.
  static constexpr int prefetch_ahead = 24;

  /// Segment i = [a, b] against p: kept when nearer than `best` (the lower
  /// index on a tie, so the result does not depend on the visiting order).
  KOKKOS_FUNCTION static void offer(Vec3f p, int i, Vec3f a, Vec3f b, Nearest& best) {
    const float u = geom::segment_param(p, a, b);
    const Vec3f d = p - geom::lerp(a, b, u);
    const float d2 = dot(d, d);
    if (d2 < best.d2 || (d2 == best.d2 && i < best.segment)) best = {d2, i, u};
  }

  /// Segments first .. first + span - 1 (mod m) against p; a window and the
  /// whole ring agree whenever the window holds the nearest segment.
  KOKKOS_FUNCTION static Nearest search(const Vec3f* c, int m, Vec3f p, int first, int span) {
    Nearest best;
    int i = first;  // (first + k) % m, first in [0, m)
    for (int k = 0; k < span; ++k) {
      const int j = i + 1 < m ? i + 1 : 0;
      offer(p, i, c[i], c[j], best);
      i = j;
    }
    return best;
  }

  /// The segments of ring chunk q against p.
  KOKKOS_FUNCTION static void offer_chunk(const Vec3f* c, int m, Vec3f p, int q, Nearest& best) {
    const int lo = q * ring_chunk, hi = kmath::min(lo + ring_chunk, m);
    for (int i = lo; i < hi; ++i) offer(p, i, c[i], c[i + 1 < m ? i + 1 : 0], best);
  }

  /// Chunks of the whole ring's segments whose bounding boxes a ring search
  /// keeps (rings of more than ring_chunks * ring_chunk segments take the plain
  /// search).
  static constexpr int ring_chunk = 8, ring_chunks = 64;

  /// The whole ring against p, as search(c, m, p, 0, m) finds it: the squared
  /// gap between p and each chunk's bounding box first, then the nearest
  /// chunk, then every chunk whose gap may be less than the best distance so
  /// far (the gap is a lower bound on its segments' distances; a margin covers
  /// the rounding of the distances).
  KOKKOS_FUNCTION static Nearest search_ring(const Vec3f* c, int m, Vec3f p) {
    const int chunks = (m + ring_chunk - 1) / ring_chunk;
    if (chunks > ring_chunks) return search(c, m, p, 0, m);
    float gap2[ring_chunks];
    int nearest = 0;
    for (int q = 0; q < chunks; ++q) {
      const int lo = q * ring_chunk, hi = kmath::min(lo + ring_chunk, m);
      Vec3f bmin = c[lo], bmax = c[lo];
      for (int i = lo + 1; i <= hi; ++i) {
        const Vec3f v = c[i < m ? i : 0];
        bmin = {kmath::min(bmin.x, v.x), kmath::min(bmin.y, v.y), kmath::min(bmin.z, v.z)};
        bmax = {kmath::max(bmax.x, v.x), kmath::max(bmax.y, v.y), kmath::max(bmax.z, v.z)};
      }
      const float gx = kmath::max(kmath::max(bmin.x - p.x, p.x - bmax.x), 0.0f);
      const float gy = kmath::max(kmath::max(bmin.y - p.y, p.y - bmax.y), 0.0f);
      const float gz = kmath::max(kmath::max(bmin.z - p.z, p.z - bmax.z), 0.0f);
      gap2[q] = gx * gx + gy * gy + gz * gz;
      if (gap2[q] < gap2[nearest]) nearest = q;
    }
    Nearest best;
    offer_chunk(c, m, p, nearest, best);
    const float tol = 1e-4f * (1.0f + kmath::fabs(p.x) + kmath::fabs(p.y) + kmath::fabs(p.z));
    for (int q = 0; q < chunks; ++q) {
      const float reach = kmath::sqrt(best.d2) * (1.0f + 1e-4f) + tol;  // NaN: nothing is skipped
      if (q != nearest && !(gap2[q] > reach * reach)) offer_chunk(c, m, p, q, best);
    }
    return best;
  }

  /// Prefetches the window of env f (a warm query a few envs ahead).
  KOKKOS_FUNCTION void prefetch_window(const int f) const {
    if (f >= static_cast<int>(last.extent(0))) return;
    const int prev = last(f), n_max = track.n_max();
    if (prev < 0 || prev >= n_max) return;
    const int lo = kmath::max(prev - window, 0), hi = kmath::min(prev + window + 2, n_max);
    const std::size_t base = static_cast<std::size_t>(f) * n_max;
    detail::prefetch(track.center.data() + base + lo, sizeof(Vec3f) * (hi - lo));
    detail::prefetch(track.arclen.data() + base + lo, sizeof(float) * (hi - lo));
  }

  /// How many envs ahead a cold query prefetches the centerline it scans.
  static constexpr int prefetch_ahead_cold = 2;

  /// Prefetches the centerline of env f (a cold query a few envs ahead).
  KOKKOS_FUNCTION void prefetch_centerline(const int f) const {
    if (f >= static_cast<int>(last.extent(0))) return;
    const int n_max = track.n_max(), m = kmath::clamp(track.count(f), 0, n_max);
    detail::prefetch(track.center.data() + static_cast<std::size_t>(f) * n_max, sizeof(Vec3f) * m);
  }

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (window > 0) {
      prefetch_window(e + prefetch_ahead);
    } else {
      prefetch_centerline(e + prefetch_ahead_cold);
    }
    const Vec3f p = position(e);
    const int n_max = track.n_max();
    const int m = kmath::clamp(track.count(e), 0, n_max);
    if (!is_finite(p) || m < 3) {
      out.s(e) = out.n(e) = out.n_up(e) = nanf();
      out.segment(e) = -1;
      last(e) = -1;
      return;
    }
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const Vec3f* const c = track.center.data() + base;
    const int prev = last(e);
    Nearest best;
    bool found = false;
    if (window > 0 && prev >= 0 && prev < m) {
      const int span = kmath::min(2 * window + 1, m);
      const int first = ((prev - window) % m + m) % m;
      best = search(c, m, p, first, span);
      const bool edge = span < m && (best.segment == first || best.segment == (first + span - 1) % m);
      found = !edge && best.d2 <= relock * relock;
    }
    if (!found) best = search_ring(c, m, p);
    if (best.segment < 0) {  // so far away that no squared distance is finite: no frame
      out.s(e) = out.n(e) = out.n_up(e) = nanf();
      out.segment(e) = -1;
      last(e) = -1;
      return;
    }
    const int i = best.segment;
    const float* const arc = track.arclen.data() + base;
    const float len = track.length(e);
    const float end = i + 1 < m ? arc[i + 1] : len;
    float s = arc[i] + best.u * (end - arc[i]);
    if (s >= len) s -= len;
    const Vec3f a = c[i], b = c[i + 1 < m ? i + 1 : 0];
    const Vec3f t = geom::safe_norm3(b - a);
    Vec3f right = cross(t, Vec3f{0.0f, 0.0f, 1.0f});
    const float rl = length(right);
    right = rl < 1e-6f ? Vec3f{1.0f, 0.0f, 0.0f} : right * (1.0f / rl);
    const Vec3f up = cross(right, t);
    const Vec3f d = p - geom::lerp(a, b, best.u);
    out.s(e) = s;
    out.n(e) = dot(d, right);
    out.n_up(e) = dot(d, up);
    out.segment(e) = i;
    last(e) = i;
  }
};

template <class Space>
struct ForgetSegment {
  DView<std::int32_t, Space> mask, last;
  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() == nullptr || mask(e) != 0) last(e) = -1;
  }
};

/// Validates the constructor's arguments (before any allocation); returns W (0: cold).
template <class M>
int checked_window(const Track<M>& track, std::optional<int> warm_window, std::optional<float> relock) {
  const std::string api = "trackgen::TrackLocalizer";
  detail::track_stride(api, track);
  if (warm_window) detail::require(*warm_window >= 1, api, "warm_window", ">= 1 (or unset: cold)", std::to_string(*warm_window));
  if (relock) {
    detail::require(std::isfinite(*relock) && *relock > 0.0f, api, "relock_distance", "finite and > 0 (or unset)",
                    std::to_string(*relock));
    detail::require(warm_window.has_value(), api, "relock_distance", "unset for a cold localizer (no warm_window)",
                    std::to_string(*relock));
  }
  return warm_window.value_or(0);
}

}  // namespace

template <class Space>
TrackFrame<Space> TrackFrame<Space>::clone() const {
  return {detail::clone_view(s), detail::clone_view(n), detail::clone_view(n_up), detail::clone_view(segment)};
}

template <class Space>
TrackLocalizer<Space>::TrackLocalizer(Space space, const track_type& track, std::optional<int> warm_window,
                                      std::optional<float> relock_distance)
    : ctx_(std::move(space)),
      track_(track),
      window_(checked_window(track, warm_window, relock_distance)),
      relock_(relock_distance.value_or(std::numeric_limits<float>::infinity())),
      inputs_("trackgen::TrackLocalizer", static_cast<std::size_t>(track.num_envs()), "bind", "query") {
  const auto& sp = ctx_.space();
  const std::size_t E = static_cast<std::size_t>(track.num_envs());
  last_ = detail::runtime_view<std::int32_t>(sp, "localizer_last_segment", E);
  frame_.s = detail::runtime_view<float>(sp, "frame_s", E);
  frame_.n = detail::runtime_view<float>(sp, "frame_n", E);
  frame_.n_up = detail::runtime_view<float>(sp, "frame_n_up", E);
  frame_.segment = detail::runtime_view<std::int32_t>(sp, "frame_segment", E);
  Kokkos::deep_copy(sp, last_, -1);
  Kokkos::deep_copy(sp, frame_.segment, -1);
  for (const auto* v : {&frame_.s, &frame_.n, &frame_.n_up}) Kokkos::deep_copy(sp, *v, nanf());
  sp.fence();
}

template <class Space>
void TrackLocalizer<Space>::bind(const Vec3View& position) {
  inputs_.bind({position});
}

template <class Space>
const TrackFrame<Space>& TrackLocalizer<Space>::query() {
  return query(ctx_);
}

template <class Space>
const TrackFrame<Space>& TrackLocalizer<Space>::query(const LaunchContext<Space>& ctx) {
  launch_query(ctx, inputs_.bound(ctx).position);
  return frame_;
}

template <class Space>
const TrackFrame<Space>& TrackLocalizer<Space>::query(const Vec3View& position) {
  return query(ctx_, position);
}

template <class Space>
const TrackFrame<Space>& TrackLocalizer<Space>::query(const LaunchContext<Space>& ctx, const Vec3View& position) {
  launch_query(ctx, inputs_.per_call({position}).position);
  return frame_;
}

template <class Space>
void TrackLocalizer<Space>::launch_query(const LaunchContext<Space>& ctx, const Vec3View& position) {
  ctx.for_each("TrackGen::runtime::localizer::query", last_.extent(0),
               Localize<Space>{track_, position, last_, frame_, window_, relock_});
}

template <class Space>
void TrackLocalizer<Space>::reset() {
  reset(ctx_);
}

template <class Space>
void TrackLocalizer<Space>::reset(const LaunchContext<Space>& ctx, const IntView& mask) {
  detail::check_mask("trackgen::TrackLocalizer::reset", mask, last_.extent(0));
  ctx.for_each("TrackGen::runtime::localizer::reset", last_.extent(0), ForgetSegment<Space>{mask, last_});
}

#define TRACKGEN_INSTANTIATE_LOCALIZER(S) \
  template struct TrackFrame<S>;          \
  template class TrackLocalizer<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_LOCALIZER)

}  // namespace trackgen

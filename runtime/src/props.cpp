// PropSampler (see props.hpp).
#include <trackgen/runtime/detail/arc.hpp>
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/geometry.hpp>
#include <trackgen/runtime/props.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace trackgen {
namespace {

/// One thread per env: the border's arc-length table and the instance count.
template <class Space>
struct ScanBorder {
  DView<Vec3f, Space> border;
  DView<std::int32_t, Space> count, mask;
  DView<float, Space> cumulative;
  PropSet<Space> props;
  float spacing = 0;
  int capacity = 0;
  int n_max = 0;

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int m = kmath::clamp(count(e), 0, n_max);
    detail::EvenSpacing sp;
    if (m >= 3) {
      const Vec3f* const p = border.data() + static_cast<std::size_t>(e) * n_max;
      float* const cum = cumulative.data() + static_cast<std::size_t>(e) * (n_max + 1);
      double acc = 0.0;
      for (int i = 0; i < m; ++i) {
        cum[i] = static_cast<float>(acc);
        acc += static_cast<double>(length(p[i + 1 < m ? i + 1 : 0] - p[i]));
      }
      cum[m] = static_cast<float>(acc);
      sp = detail::even_spacing(cum[m], spacing, capacity);
    }
    props.count(e) = sp.n;
    props.step(e) = sp.step;
    props.truncated(e) = sp.truncated;
  }
};

/// One thread per instance slot.
template <class Space>
struct PlaceProps {
  DView<Vec3f, Space> border;
  DView<std::int32_t, Space> count, mask;
  DView<float, Space> cumulative;
  PropSet<Space> props;
  PropMode mode = PropMode::points;
  int capacity = 0;
  int n_max = 0;

  /// The point at arc length s of the env's border and the segment it lies on.
  KOKKOS_FUNCTION Vec3f point_at(const Vec3f* p, const float* cum, int m, float s, int& j) const {
    j = detail::arc_index(cum, m, s);
    return geom::lerp(p[j], p[j + 1 < m ? j + 1 : 0], detail::arc_param(cum, m, cum[m], j, s));
  }

  KOKKOS_FUNCTION void operator()(const std::size_t slot) const {
    const int e = static_cast<int>(slot / capacity), k = static_cast<int>(slot % capacity);
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n = props.count(e);
    if (k >= n) {
      props.position(slot) = nan3();
      props.tangent(slot) = nan2();
      props.yaw(slot) = props.length(slot) = nanf();
      return;
    }
    const int m = kmath::clamp(count(e), 0, n_max);
    const Vec3f* const p = border.data() + static_cast<std::size_t>(e) * n_max;
    const float* const cum = cumulative.data() + static_cast<std::size_t>(e) * (n_max + 1);
    const float step = props.step(e);
    int j = 0;
    const Vec3f a = point_at(p, cum, m, static_cast<float>(k) * step, j);
    Vec2f dir;
    if (mode == PropMode::points) {
      props.position(slot) = a;
      dir = geom::xy(p[j + 1 < m ? j + 1 : 0] - p[j]);
      props.length(slot) = step;
    } else {
      int j1 = 0;
      const Vec3f b = point_at(p, cum, m, k + 1 < n ? static_cast<float>(k + 1) * step : 0.0f, j1);
      props.position(slot) = 0.5f * (a + b);
      dir = geom::xy(b - a);
      props.length(slot) = length(b - a);
    }
    const Vec2f t = geom::safe_norm2(dir);
    props.tangent(slot) = t;
    props.yaw(slot) = kmath::atan2(t.y, t.x);
  }
};

/// The sampler's capacity: `max_props` (checked) or the automatic rule.
template <class M>
int prop_capacity(const Track<M>& track, float spacing, PropBoundary boundary, PropMode mode,
                  std::optional<int> max_props) {
  const std::string api = "trackgen::PropSampler";
  const int n_max = detail::track_stride(api, track);
  detail::require(std::isfinite(spacing) && spacing > 0.0f, api, "spacing", "finite and > 0", std::to_string(spacing));
  detail::require(boundary == PropBoundary::inner || boundary == PropBoundary::outer, api, "boundary",
                  "PropBoundary::inner or PropBoundary::outer", std::to_string(static_cast<int>(boundary)));
  detail::require(mode == PropMode::points || mode == PropMode::segments, api, "mode",
                  "PropMode::points or PropMode::segments", std::to_string(static_cast<int>(mode)));
  if (max_props) {
    detail::require(*max_props >= 3, api, "max_props", ">= 3", std::to_string(*max_props));
    return *max_props;
  }
  const auto h = track.to_host();
  const auto& border = boundary == PropBoundary::outer ? h.outer : h.inner;
  std::vector<float> perimeter(static_cast<std::size_t>(h.num_envs()), 0.0f);
  for (int e = 0; e < h.num_envs(); ++e) {
    const int m = std::clamp(h.count(e), 0, n_max);
    double acc = 0.0;
    for (int i = 0; i < m; ++i) {
      acc += static_cast<double>(length(border(std::size_t(e) * n_max + (i + 1 < m ? i + 1 : 0)) -
                                        border(std::size_t(e) * n_max + i)));
    }
    perimeter[static_cast<std::size_t>(e)] = static_cast<float>(acc);
  }
  const double s = detail::largest_point_spacing(api, perimeter.data(), h.count.data(), h.valid.data(), h.num_envs());
  return detail::sampler_capacity(api, n_max, s, spacing);
}

}  // namespace

template <class Space>
PropSet<Space> PropSet<Space>::clone() const {
  return {detail::clone_view(position), detail::clone_view(tangent), detail::clone_view(yaw),
          detail::clone_view(length),   detail::clone_view(count),   detail::clone_view(truncated),
          detail::clone_view(step)};
}

template <class Space>
PropSampler<Space>::PropSampler(Space space, const track_type& track, float spacing, PropBoundary boundary,
                                PropMode mode, std::optional<int> max_props)
    : ctx_(std::move(space)),
      track_(track),
      spacing_(spacing),
      boundary_(boundary),
      mode_(mode),
      capacity_(prop_capacity(track, spacing, boundary, mode, max_props)) {
  const auto& s = ctx_.space();
  const std::size_t E = static_cast<std::size_t>(track.num_envs()), n = E * capacity_;
  props_.position = detail::runtime_view<Vec3f>(s, "prop_position", n);
  props_.tangent = detail::runtime_view<Vec2f>(s, "prop_tangent", n);
  props_.yaw = detail::runtime_view<float>(s, "prop_yaw", n);
  props_.length = detail::runtime_view<float>(s, "prop_length", n);
  props_.count = detail::runtime_view<std::int32_t>(s, "prop_count", E);
  props_.truncated = detail::runtime_view<std::int32_t>(s, "prop_truncated", E);
  props_.step = detail::runtime_view<float>(s, "prop_step", E);
  cumulative_ = detail::runtime_view<float>(s, "prop_cumulative", E * (static_cast<std::size_t>(track.n_max()) + 1));
  sample();
  s.fence();
}

template <class Space>
const PropSet<Space>& PropSampler<Space>::sample() {
  return sample(ctx_);
}

template <class Space>
const PropSet<Space>& PropSampler<Space>::sample(const LaunchContext<Space>& ctx, const IntView& mask) {
  detail::check_mask("trackgen::PropSampler::sample", mask, props_.count.extent(0));
  const auto& border = boundary_ == PropBoundary::outer ? track_.outer : track_.inner;
  ctx.for_each("TrackGen::runtime::props::scan", props_.count.extent(0),
               ScanBorder<Space>{border, track_.count, mask, cumulative_, props_, spacing_, capacity_, track_.n_max()});
  ctx.for_each("TrackGen::runtime::props::place", props_.position.extent(0),
               PlaceProps<Space>{border, track_.count, mask, cumulative_, props_, mode_, capacity_, track_.n_max()});
  return props_;
}

#define TRACKGEN_INSTANTIATE_PROPS(S) \
  template struct PropSet<S>;         \
  template class PropSampler<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_PROPS)

}  // namespace trackgen

// The built-in gate anchor sources and the gate generator registry
// (docs/algorithms.md#gate-anchors). Each source runs the anchor kernels of the
// centerline generator of the same name, with the same salts, so the gates of
// env e sit on the control points its centerline would be built from:
//   bezier, hull   the point-family grid corners (count drawn in
//                  [min_num_points, max_num_points]), in draw order;
//   polar          the K = max(polar_num_knots, 4) jittered knots (CCW);
//   voronoi        the K = voronoi_control_points snapped anchors (CCW);
//   checkpoint     the C = checkpoint_count checkpoints of candidate 0 (CCW).
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/checkpoint.hpp>
#include <trackgen/generators/detail/hull.hpp>
#include <trackgen/generators/detail/polar.hpp>
#include <trackgen/generators/detail/voronoi.hpp>
#include <trackgen/generators/gate_source.hpp>

#include "named_registry.hpp"

namespace trackgen {
namespace detail {
namespace {

/// "TrackGen::generators::gates::<name>::<what>".
std::string gate_label(const char* name, const char* what) {
  return std::string("TrackGen::generators::gates::") + name + "::" + what;
}

/// The generator name of gate source `name` in scratch labels (gate_label).
std::string gate_gen(const char* name) { return std::string("gates::") + name; }

/// The bezier or hull corner sampler as a gate source: Params resolves the
/// generator's parameters, Kernel is its corner kernel.
template <class Space, class Params, auto Kernel>
class CornerGates final : public GateSource<Space> {
 public:
  using typename GateSource<Space>::IntView;
  using typename GateSource<Space>::Vec2View;

  CornerGates(const Space& space, const GateGenConfig& c, const char* name)
      : p_(Params::from_config(c.track_config())), name_(name) {
    allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, gate_gen(name));
  }

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& anchors,
                const IntView& count) override {
    Kernel(ctx, gate_label(name_, "anchors"), p_, seeds, count, anchors, used_);
  }
  std::size_t device_bytes() const override {
    return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
  }
  /// device_bytes() of the source built for `c`, without allocating.
  static std::size_t scratch_bytes(const GateGenConfig& c) {
    const Params p = Params::from_config(c.track_config());
    return plan_bytes<CornerGates>([&](auto&& f) { scratch_plan(p, f); });
  }

 private:
  /// The one list of its scratch (see allocate_plan).
  template <class F>
  static void scratch_plan(const Params& p, F&& f) {
    f("used", TRACKGEN_MEMBER(used_), std::size_t(p.num_envs) * p.num_slots);
  }

  Params p_;
  const char* name_;
  IntView used_;
};

/// bezier_corners without the style scale (gates have no style sampling).
template <class Space>
void bezier_gate_corners(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                         const DView<std::int32_t, Space>& seeds, const DView<std::int32_t, Space>& count,
                         const DView<Vec2f, Space>& raw, const DView<std::int32_t, Space>& used) {
  bezier_corners(ctx, label, p, seeds, DView<float, Space>(), count, raw, used);
}

template <class Space>
class PolarGates final : public GateSource<Space> {
 public:
  using typename GateSource<Space>::IntView;
  using typename GateSource<Space>::Vec2View;

  PolarGates(const Space&, const GateGenConfig& c) : p_(PolarParams::from_config(c.track_config())) {}
  /// No scratch: the knots are the anchors.
  static std::size_t scratch_bytes(const GateGenConfig&) { return 0; }

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& anchors,
                const IntView& count) override {
    polar_controls(ctx, gate_label("polar", "anchors"), p_, seeds, anchors);
    ctx.fill(count, std::int32_t(p_.num_knots));
  }

 private:
  PolarParams p_;
};

template <class Space>
class VoronoiGates final : public GateSource<Space> {
 public:
  using typename GateSource<Space>::IntView;
  using typename GateSource<Space>::Vec2View;

  VoronoiGates(const Space& space, const GateGenConfig& c) : p_(VoronoiParams::from_config(c.track_config())) {
    allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, gate_gen("voronoi"));
  }

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& anchors,
                const IntView& count) override {
    voronoi_sites(ctx, gate_label("voronoi", "sites"), p_, seeds, sites_, site_polar_, used_);
    voronoi_targets(ctx, gate_label("voronoi", "targets"), p_, seeds, targets_);
    voronoi_anchors(ctx, gate_label("voronoi", "anchors"), p_, sites_, site_polar_, used_, targets_, anchor_site_,
                    anchors);
    ctx.fill(count, std::int32_t(p_.num_anchors));
  }
  std::size_t device_bytes() const override {
    return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
  }
  /// device_bytes() of the source built for `c`, without allocating.
  static std::size_t scratch_bytes(const GateGenConfig& c) {
    const VoronoiParams p = VoronoiParams::from_config(c.track_config());
    return plan_bytes<VoronoiGates>([&](auto&& f) { scratch_plan(p, f); });
  }

 private:
  /// The one list of its scratch (see allocate_plan).
  template <class F>
  static void scratch_plan(const VoronoiParams& p, F&& f) {
    const std::size_t E = p.num_envs, S = p.num_sites, K = p.num_anchors;
    f("sites", TRACKGEN_MEMBER(sites_), E * S);
    f("site_polar", TRACKGEN_MEMBER(site_polar_), E * S);
    f("used", TRACKGEN_MEMBER(used_), E * S);
    f("targets", TRACKGEN_MEMBER(targets_), E * K);
    f("anchor_site", TRACKGEN_MEMBER(anchor_site_), E * K);
  }

  VoronoiParams p_;
  Vec2View sites_, site_polar_, targets_;
  IntView used_, anchor_site_;
};

template <class Space>
class CheckpointGates final : public GateSource<Space> {
 public:
  using typename GateSource<Space>::IntView;
  using typename GateSource<Space>::Vec2View;

  /// One candidate (track_config() sets checkpoint_best_of_k = 1): the ring of
  /// candidate k = 0, stream seed * 4099 + 1.
  CheckpointGates(const Space&, const GateGenConfig& c) : p_(CheckpointParams::from_config(c.track_config())) {}
  /// No scratch: the ring is written into the anchors.
  static std::size_t scratch_bytes(const GateGenConfig&) { return 0; }

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& anchors,
                const IntView& count) override {
    checkpoint_rings(ctx, gate_label("checkpoint", "anchors"), p_, seeds, anchors);
    ctx.fill(count, std::int32_t(p_.num_checkpoints));
  }

 private:
  CheckpointParams p_;
};

/// The spec of a built-in source `Source` (constructible from (space, config)).
template <class Source, class Space>
GateGeneratorSpec<Space> gate_spec(const char* name, int (*max_gates)(const GateGenConfig&),
                                   int (*min_gates)(const GateGenConfig&), std::vector<GateOrdering> orderings,
                                   bool normalize) {
  GateGeneratorSpec<Space> spec;
  spec.name = name;
  spec.make = [name](const Space& space, const GateGenConfig& config) -> std::unique_ptr<GateSource<Space>> {
    if constexpr (std::is_constructible_v<Source, const Space&, const GateGenConfig&, const char*>) {
      return std::make_unique<Source>(space, config, name);
    } else {
      return std::make_unique<Source>(space, config);
    }
  };
  spec.scratch_bytes = &Source::scratch_bytes;
  spec.max_gates = max_gates;
  spec.min_gates = min_gates;
  spec.orderings = std::move(orderings);
  spec.normalize = normalize;
  return spec;
}

int point_max(const GateGenConfig& c) { return c.max_num_points; }
int point_min(const GateGenConfig& c) { return c.min_num_points; }
int polar_count(const GateGenConfig& c) { return c.polar_num_knots > 4 ? c.polar_num_knots : 4; }
int voronoi_count(const GateGenConfig& c) { return c.voronoi_control_points; }
int checkpoint_count(const GateGenConfig& c) { return c.checkpoint_count; }

template <class Space>
NamedRegistry<GateGeneratorSpec<Space>>& gate_registry() {
  using O = GateOrdering;
  using Bezier = CornerGates<Space, BezierParams, &bezier_gate_corners<Space>>;
  using Hull = CornerGates<Space, HullParams, &hull_corners<Space>>;
  static NamedRegistry<GateGeneratorSpec<Space>> r(
      "gate generator",
      {gate_spec<Bezier, Space>("bezier", point_max, point_min, {O::ccw, O::random_pairs}, false),
       gate_spec<Hull, Space>("hull", point_max, point_min, {O::ccw, O::random_pairs}, false),
       gate_spec<PolarGates<Space>, Space>("polar", polar_count, polar_count, {O::ccw, O::raw}, true),
       gate_spec<VoronoiGates<Space>, Space>("voronoi", voronoi_count, voronoi_count, {O::ccw, O::raw}, true),
       gate_spec<CheckpointGates<Space>, Space>("checkpoint", checkpoint_count, checkpoint_count, {O::ccw, O::raw},
                                                true)});
  return r;
}

}  // namespace
}  // namespace detail

template <class Space>
void register_gate_generator(GateGeneratorSpec<Space> spec) {
  const std::string api = "trackgen::register_gate_generator";
  if (!spec.max_gates || !spec.min_gates) {
    throw ConfigError(api + ": spec.max_gates and spec.min_gates of '" + spec.name + "' must be set");
  }
  if (spec.orderings.empty()) throw ConfigError(api + ": spec.orderings of '" + spec.name + "' is empty");
  detail::gate_registry<Space>().add(std::move(spec), api);
}

template <class Space>
const GateGeneratorSpec<Space>& get_gate_generator(const std::string& name) {
  return detail::gate_registry<Space>().get(name, "trackgen::get_gate_generator");
}

template <class Space>
std::vector<std::string> available_gate_generators() {
  return detail::gate_registry<Space>().names();
}

std::vector<std::string> builtin_gate_generator_names() { return {"bezier", "checkpoint", "hull", "polar", "voronoi"}; }

#define TRACKGEN_INSTANTIATE_GATE_REGISTRY(S)                                       \
  template void register_gate_generator<S>(GateGeneratorSpec<S>);                   \
  template const GateGeneratorSpec<S>& get_gate_generator<S>(const std::string&);   \
  template std::vector<std::string> available_gate_generators<S>();
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_GATE_REGISTRY)

}  // namespace trackgen

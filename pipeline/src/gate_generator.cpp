// GateGenerator (docs/design.md#gategenerator).
#include <trackgen/core/errors.hpp>
#include <trackgen/generators/detail/loops.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/memory.hpp>

#include <algorithm>
#include <string>

namespace trackgen {
namespace {

std::string ordering_names(const std::vector<GateOrdering>& orderings) {
  std::string s;
  for (const auto o : orderings) s += (s.empty() ? "" : ", ") + std::string(setting_name(o));
  return s;
}

/// Validates `config` for a GateGenerator fed by `seed_envs` per-env seeds:
/// the fields, then what the gate generator can do (its orderings, how many
/// anchors it writes), and the memory estimate against the limit. Runs first in
/// the constructor, before any allocation.
template <class Space>
GateGenConfig checked_config(const GateGenConfig& config, std::size_t seed_envs) {
  const std::string api = "trackgen::GateGenerator";
  config.validate(available_gate_generators<Space>());
  if (seed_envs != static_cast<std::size_t>(config.num_envs)) {
    throw ConfigError(api + ": seeds.num_envs() = " + std::to_string(seed_envs) +
                      " must equal config.num_envs = " + std::to_string(config.num_envs));
  }
  const auto& spec = get_gate_generator<Space>(config.generator);
  const auto& o = spec.orderings;
  if (std::find(o.begin(), o.end(), config.gate_ordering) == o.end()) {
    throw ConfigError(api + ": gate_ordering = \"" + setting_name(config.gate_ordering) +
                      "\" is not supported by gate generator '" + spec.name + "' (supported: " + ordering_names(o) +
                      ")");
  }
  const int most = spec.max_gates(config), fewest = spec.min_gates(config);
  if (most > config.max_gates) {
    throw ConfigError(api + ": max_gates = " + std::to_string(config.max_gates) + " is below the " +
                      std::to_string(most) + " gates gate generator '" + spec.name + "' can write");
  }
  if (fewest < config.min_gates) {
    throw ConfigError(api + ": min_gates = " + std::to_string(config.min_gates) + " exceeds the " +
                      std::to_string(fewest) + " gates gate generator '" + spec.name +
                      "' may write (those courses could never be valid)");
  }
  check_gate_memory<Space>(config, memory_limit_bytes(), api);
  return config;
}

}  // namespace

template <class Space>
GateGenerator<Space>::GateGenerator(const Space& space, const GateGenConfig& config, SeedState<Space> seeds)
    : Base(space, config, std::move(seeds), &checked_config<Space>, "gates", "gates:" + config.generator),
      spec_(&get_gate_generator<Space>(config_.generator)),
      params_(GateParams::from_config(config_, spec_->max_gates(config_), spec_->normalize)) {
  const Space& s = this->space();
  const std::size_t E = config_.num_envs, S = params_.anchor_stride, G = config_.max_gates;
  const auto alloc = [&](const char* name) { return Kokkos::view_alloc(s, label("gates", name)); };
  source_ = spec_->make(s, config_);
  anchors_ = DView<Vec2f, Space>(alloc("anchors"), E * S);
  sort_keys_ = DView<std::uint64_t, Space>(alloc("sort_keys"), E * S);
  sorted_ = DView<Vec2f, Space>(alloc("sorted"), E * S);
  pair_keys_ = DView<float, Space>(alloc("pair_keys"), E * S);
  staging_ = DView<Vec2f, Space>(alloc("staging"), E * G);
  cum_ = DView<float, Space>(alloc("cum"), E * G);
  z_ = DView<float, Space>(alloc("z"), E * G);
  fallbacks_ = IntView(alloc("frame_fallbacks"), E);
  gates_ = sequence_type(s, config_.num_envs, config_.max_gates);
  this->start();
}

template <class Space>
GateGenerator<Space>::GateGenerator(const Space& space, const GateGenConfig& config, const IntView& seeds)
    : GateGenerator(space, config, SeedState<Space>(space, seeds, /*copy=*/false)) {}

template <class Space>
GateGenerator<Space>::GateGenerator(const GateGenConfig& config, SeedState<Space> seeds)
    : GateGenerator(Space(), config, std::move(seeds)) {}

template <class Space>
GateGenerator<Space>::GateGenerator(const GateGenConfig& config, const IntView& seeds)
    : GateGenerator(Space(), config, seeds) {}

template <class Space>
void GateGenerator<Space>::enqueue_body(const LaunchContext<Space>& ctx) {
  const auto region = ctx.region("TrackGen::gates::" + config_.generator);
  source_->generate(ctx, seed_buf_, anchors_, gates_.count);
  order_gates(ctx, params_, seed_buf_, anchors_, sort_keys_, sorted_, pair_keys_, gates_.count, staging_);
  if (params_.normalize) {
    detail::normalize_bbox(ctx, "TrackGen::gates::", staging_, params_.max_gates, params_.max_gates,
                           params_.norm_target);
  }
  separate_gates(ctx, params_, gates_.count, staging_);
  lift_gates(ctx, params_, seed_buf_, gates_.count, staging_, cum_, z_, gates_.position);
  gate_frames(ctx, params_, gates_, fallbacks_);
  gate_validity(ctx, params_, gates_);
}

template <class Space>
Stage<Space> GateGenerator<Space>::body_stage() {
  Stage<Space> body;
  body.id = "gates:" + config_.generator;
  body.reads = {buffer("seed_buf", seed_buf_)};
  body.writes = {buffer("position", gates_.position), buffer("forward", gates_.forward), buffer("valid", gates_.valid),
                 buffer("count", gates_.count)};
  body.enqueue = [this](const LaunchContext<Space>& ctx) { enqueue_body(ctx); };
  return body;
}

template <class Space>
std::vector<BufferRef> GateGenerator<Space>::masked_writes() const {
  return {buffer("seed_buf", seed_buf_), buffer("position", gates_.position), buffer("valid", gates_.valid)};
}

template <class Space>
std::size_t GateGenerator<Space>::device_bytes() const {
  return gates_.bytes() + this->skeleton_bytes() + view_bytes(anchors_) + view_bytes(sort_keys_) + view_bytes(sorted_) +
         view_bytes(pair_keys_) + view_bytes(staging_) + view_bytes(cum_) + view_bytes(z_) + view_bytes(fallbacks_) +
         (source_ ? source_->device_bytes() : 0);
}

#define TRACKGEN_INSTANTIATE_GATE_GENERATOR(S) template class GateGenerator<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_GATE_GENERATOR)

}  // namespace trackgen

// TrackGenerator (docs/design.md#trackgenerator).
#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/pipeline/memory.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include "masked_lane.hpp"
#include "pipeline_detail.hpp"

#include <algorithm>
#include <atomic>
#include <string>

namespace trackgen {
namespace {

/// Validates `config` for a TrackGenerator fed by `seed_envs` per-env seeds,
/// and its memory estimate against the limit (trackgen/pipeline/memory.hpp).
/// Runs first in the constructor's initializer list, so nothing is allocated
/// when it throws.
template <class Space>
TrackGenConfig checked_config(const TrackGenConfig& config, std::size_t seed_envs) {
  const std::string api = "trackgen::TrackGenerator";
  config.validate(available_generators<Space>());
  if (seed_envs != static_cast<std::size_t>(config.num_envs)) {
    throw ConfigError(api + ": seeds.num_envs() = " + std::to_string(seed_envs) + " must equal config.num_envs = " +
                      std::to_string(config.num_envs));
  }
  check_memory<Space>(config, memory_limit_bytes(), api);
  return config;
}

/// The pipeline's single host read: logs a warning when some track needed more
/// than N_max points. Runs after the pipeline, outside it; a graph executor
/// skips this step while capturing (it reads device data on the host).
template <class Space, class HostView>
void warn_if_truncated(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                       const HostView& host, int n_max) {
  Kokkos::deep_copy(ctx.space(), host, track.truncated);
  ctx.fence();
  int n = 0;
  std::string first;
  for (std::size_t e = 0; e < host.extent(0); ++e) {
    if (host(e) == 0) continue;
    if (n < 8) first += (n ? ", " : "") + std::to_string(e);
    ++n;
  }
  if (n == 0) return;
  logging::warn("TrackGenerator::generate: " + std::to_string(n) + " of " + std::to_string(host.extent(0)) +
            " tracks needed more than N_max = " + std::to_string(n_max) +
            " points and were truncated (they are nearly always invalid); envs " + first + (n > 8 ? ", ..." : "") +
            ". Raise N_max (>= max perimeter / spacing + 1) or the spacing.");
}

/// `config` for a batch of `num_envs` envs.
TrackGenConfig with_envs(TrackGenConfig config, int num_envs) {
  config.num_envs = num_envs;
  return config;
}

/// The masked-regeneration lane of a producer, or null when one round would
/// cover the whole batch.
template <class Space>
std::unique_ptr<detail::MaskedLane<Space>> make_lane(const Space& space, const TrackGenConfig& config,
                                                    const GeneratorSpec<Space>& spec) {
  const int lanes = detail::masked_lane_envs<Space>(config.num_envs);
  if (lanes >= config.num_envs) return nullptr;
  return std::make_unique<detail::MaskedLane<Space>>(space, config, spec, lanes);
}

/// inflate's `padded` for a Track of `config` whose padding is not known yet:
/// N_max for every env.
template <class Space>
DView<std::int32_t, Space> unknown_padding(const Space& space, const TrackGenConfig& config) {
  DView<std::int32_t, Space> v(Kokkos::view_alloc(space, label("pipeline", "padded")),
                               static_cast<std::size_t>(config.num_envs));
  Kokkos::deep_copy(space, v, config.N_max);
  return v;
}

/// The one-thread partitions that run `parts` window threads; none for one.
template <class Space>
compat::ThreadPartitions<Space> make_partitions(int parts) {
  if constexpr (compat::has_thread_partitions<Space>()) {
    if (parts > 1) return compat::ThreadPartitions<Space>(parts);
  }
  (void)parts;
  return {};
}

/// `n` generators of `spec` for `config`, one per window thread.
template <class Space>
std::vector<std::unique_ptr<Generator<Space>>> make_generators(const Space& space, const TrackGenConfig& config,
                                                               const GeneratorSpec<Space>& spec, int n) {
  std::vector<std::unique_ptr<Generator<Space>>> g;
  for (int i = 0; i < n; ++i) g.push_back(spec.make(space, config));
  return g;
}

}  // namespace

template <class Space>
TrackGenerator<Space>::TrackGenerator(const Space& space, const TrackGenConfig& config, SeedState<Space> seeds)
    : Base(space, config, std::move(seeds), &checked_config<Space>, "pipeline", config.generator),
      spec_(&get_generator<Space>(config_.generator)),
      parts_(detail::pipeline_parts<Space>(config_.num_envs)),
      window_(detail::pipeline_window_envs<Space>(config_.num_envs)),
      generators_(make_generators(ctx_.space(), with_envs(config_, window_), *spec_, parts_)),
      partitions_(make_partitions<Space>(parts_)),
      buffers_(std::make_unique<PipelineBuffers<Space>>(ctx_.space(), config_, parts_ * window_)),
      track_(ctx_.space(), config_.num_envs, config_.N_max),
      padded_(unknown_padding(ctx_.space(), config_)),
      lane_(make_lane(ctx_.space(), config_, *spec_)),
      recorded_seeds_(seeds_.seeds().data()) {
  this->start();
}

template <class Space>
TrackGenerator<Space>::TrackGenerator(const Space& space, const TrackGenConfig& config, const IntView& seeds)
    : TrackGenerator(space, config, SeedState<Space>(space, seeds, /*copy=*/false)) {}

template <class Space>
TrackGenerator<Space>::TrackGenerator(const TrackGenConfig& config, SeedState<Space> seeds)
    : TrackGenerator(Space(), config, std::move(seeds)) {}

template <class Space>
TrackGenerator<Space>::TrackGenerator(const TrackGenConfig& config, const IntView& seeds)
    : TrackGenerator(Space(), config, seeds) {}

template <class Space>
TrackGenerator<Space>::~TrackGenerator() = default;

template <class Space>
void TrackGenerator<Space>::enqueue_body(const LaunchContext<Space>& ctx) {
  const int E = config_.num_envs;
  if (window_ == E) {
    generators_[0]->generate(ctx, seed_buf_, buffers_->gen_centerline, buffers_->gen_valid);
    run_pipeline(ctx, config_, *buffers_, seed_buf_, track_, padded_);
    return;
  }
  // Window by window (detail::pipeline_window_envs); an env's track depends on
  // its effective seed alone, so the last window, moved back to end at env
  // E - 1, rewrites the envs it shares with the one before with the same bits.
  const int windows = (E + window_ - 1) / window_;
  // (Window threads exist on host spaces only: parts_ is 1 on a device.)
  if constexpr (compat::has_thread_partitions<Space>()) {
    if (parts_ > 1) {
      // Each window thread takes the next window, runs it and takes another. The
      // last window, when it shares envs with the one before, goes with that one,
      // so that no two threads write an env at once. One node when recorded.
      ctx.as_one_node([this, E, windows](const LaunchContext<Space>& c) {
        const int claims = windows * window_ > E ? windows - 1 : windows;
        std::atomic<int> next{0};
        detail::run_parts(partitions_, c.space(), [&](const int p, const int n, const Space& space) {
          const PipelineBuffers<Space> part = buffers_->part(p, n);
          const LaunchContext<Space> pc(space);
          for (int k; (k = next.fetch_add(1, std::memory_order_relaxed)) < claims;) {
            for (int w = k; w < (k + 1 == claims ? windows : k + 1); ++w) {
              run_window(pc, *generators_[static_cast<std::size_t>(p)], part, std::min(w * window_, E - window_));
            }
          }
        });
      });
      return;
    }
  }
  for (int k = 0; k < windows; ++k) run_window(ctx, *generators_[0], *buffers_, std::min(k * window_, E - window_));
}

template <class Space>
void TrackGenerator<Space>::run_window(const LaunchContext<Space>& ctx, Generator<Space>& generator,
                                       const PipelineBuffers<Space>& buffers, int at) {
  const TrackGenConfig c = with_envs(config_, window_);
  const IntView seeds(seed_buf_.data() + at, static_cast<std::size_t>(window_));
  PipelineBuffers<Space> b = buffers.window(at, window_);
  track_type t = track_.window(at, window_);
  const IntView padded(padded_.data() + at, static_cast<std::size_t>(window_));
  generator.generate(ctx, seeds, b.gen_centerline, b.gen_valid);
  run_pipeline(ctx, c, b, seeds, t, padded);
}

template <class Space>
Stage<Space> TrackGenerator<Space>::body_stage() {
  Stage<Space> body;
  body.id = "generate:" + config_.generator;
  body.capture = spec_->capture;
  body.reads = {buffer("seed_buf", seed_buf_)};
  body.writes = {buffer("center", track_.center), buffer("outer", track_.outer), buffer("inner", track_.inner),
                 buffer("valid", track_.valid), buffer("count", track_.count),
                 buffer("invalid_reason", track_.invalid_reason)};
  body.enqueue = [this](const LaunchContext<Space>& ctx) { enqueue_body(ctx); };
  return body;
}

template <class Space>
std::vector<BufferRef> TrackGenerator<Space>::masked_writes() const {
  return {buffer("seed_buf", seed_buf_), buffer("center", track_.center), buffer("valid", track_.valid),
          buffer("invalid_reason", track_.invalid_reason)};
}

template <class Space>
Program<Space> TrackGenerator<Space>::make_masked_program(const IntView& mask, bool advance) {
  if (!lane_) return Base::make_masked_program(mask, advance);
  // The lane (masked_lane.hpp): the masked envs' effective seeds and their list,
  // then rounds of the lane batch, or the whole batch when they are too many.
  Program<Space> p(std::string(kind) + ":" + config_.generator + ":masked");
  p.add(this->mask_stage(mask, advance, [this](const LaunchContext<Space>& ctx, const IntView& m) {
    seeds_.effective(ctx, seed_buf_, m);
    lane_->compact(ctx, m);
  }));
  Stage<Space> body = body_stage();
  body.reads = {buffer("mask", mask), buffer("mask_any", any_flag_)};
  body.writes = masked_writes();
  body.enqueue = [this](const LaunchContext<Space>& ctx) {
    lane_->regenerate(ctx, seed_buf_, track_, padded_, *buffers_,
                      [this](const LaunchContext<Space>& c) { enqueue_body(c); });
  };
  p.add(std::move(body));
  return p;
}

template <class Space>
void TrackGenerator<Space>::rebind_seeds(const IntView& seeds) {
  seeds_.rebind(seeds);
  refresh_seed_binding();
}

template <class Space>
void TrackGenerator<Space>::refresh_seed_binding() {
  if (seeds_.seeds().data() == recorded_seeds_) return;
  recorded_seeds_ = seeds_.seeds().data();
  runner_.reset_graphs();
  program_ = this->make_program();
  if (caller_recorded_) {
    caller_recorded_ = false;
    logging::warn("TrackGenerator (" + config_.generator +
                  "): the seeds were rebound after generate(ctx) recorded into a caller's graph; that graph "
                  "keeps reading the old seeds View. Record it again.");
  }
}

template <class Space>
void TrackGenerator<Space>::after_run(const LaunchContext<Space>& ctx) {
  if (ctx.capturing()) {
    caller_recorded_ = true;
  } else {
    // Host step after the program (never recorded): the truncation warning.
    warn_if_truncated(ctx, track_, buffers_->truncated_host, config_.N_max);
  }
}

template <class Space>
const DView<Vec2f, Space>& TrackGenerator<Space>::pre_relax_centerline() const {
  return buffers_->cs_center;
}

template <class Space>
const DView<Vec2f, Space>& TrackGenerator<Space>::generator_centerline() const {
  return buffers_->gen_centerline;
}

template <class Space>
std::size_t TrackGenerator<Space>::pipeline_bytes() const {
  return buffers_->device_bytes();
}

template <class Space>
int TrackGenerator<Space>::masked_lane_envs() const {
  return lane_ ? lane_->lanes() : config_.num_envs;
}

template <class Space>
std::size_t TrackGenerator<Space>::device_bytes() const {
  std::size_t generators = 0;
  for (const auto& g : generators_) generators += g->device_bytes();
  return track_.bytes() + buffers_->device_bytes() + this->skeleton_bytes() + view_bytes(padded_) + generators +
         (lane_ ? lane_->device_bytes() : 0);
}

#define TRACKGEN_INSTANTIATE_TRACK_GENERATOR(S) template class TrackGenerator<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_TRACK_GENERATOR)

}  // namespace trackgen

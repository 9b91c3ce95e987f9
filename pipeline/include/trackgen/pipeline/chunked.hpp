// Chunked generation: a batch of E envs with base seed k (env e uses seed
// k + e, SeedExpansion::arange) produced as consecutive chunks of at most C
// envs, each chunk a TrackGenerator of its own size whose bound seed View holds
// k + first + i. Results are a pure function of (seed, epoch, config), so the
// chunks equal the one-batch generation bit for bit (tests/test_chunked.cpp),
// while at most one chunk's producer is in memory.
#pragma once

#include <trackgen/pipeline/track_generator.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

namespace trackgen {

/// Generates the batch of `config` (config.num_envs envs, env e with base seed
/// k + e, epochs 0) on `space` in chunks of at most `chunk_envs` envs, in
/// order: for each chunk, calls `f(first, generator)` after its generate() has
/// finished (fenced), where generator.track() holds envs
/// [first, first + generator.track().num_envs()) of the batch, bit-identical to
/// those envs of one TrackGenerator of config.num_envs envs. One producer of
/// chunk_envs envs is alive at a time (one of the remainder's size replaces it
/// for a shorter last chunk). ConfigError before any work for a bad config or
/// chunk_envs < 1.
template <class Space, class F>
void generate_chunked(const Space& space, const TrackGenConfig& config, std::int32_t k, int chunk_envs, F&& f,
                      Policy policy = Policy::automatic) {
  if (chunk_envs < 1) {
    throw ConfigError("trackgen::generate_chunked: chunk_envs must be >= 1, got " + std::to_string(chunk_envs));
  }
  config.validate();
  const int total = config.num_envs;
  std::unique_ptr<TrackGenerator<Space>> gen;
  DView<std::int32_t, Space> seeds;
  for (int first = 0; first < total; first += chunk_envs) {
    const int n = std::min(chunk_envs, total - first);
    if (!gen || gen->config().num_envs != n) {
      gen.reset();  // free the previous chunk's producer before allocating the next
      TrackGenConfig c = config;
      c.num_envs = n;
      seeds = DView<std::int32_t, Space>(Kokkos::view_alloc(space, label("chunked", "seeds")), n);
      gen = std::make_unique<TrackGenerator<Space>>(space, c, seeds);
      gen->set_policy(policy);
    }
    // expand_seed(k + first, i) == expand_seed(k, first + i): both wrap in uint32.
    detail::expand_seeds(space, seeds, expand_seed(k, first, SeedExpansion::arange), SeedExpansion::arange);
    gen->generate();
    gen->space().fence();
    f(first, static_cast<const TrackGenerator<Space>&>(*gen));
  }
}

}  // namespace trackgen

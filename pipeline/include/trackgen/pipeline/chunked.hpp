// Chunked generation: a batch of E envs with base seed k (env e uses seed
// k + e, SeedExpansion::arange) produced as consecutive chunks of envs by one
// TrackGenerator of the chunk's size whose bound seed View holds k + first + i.
// Results are a pure function of (seed, epoch, config), so the chunks equal the
// one-batch generation bit for bit (tests/test_chunked.cpp), while only one
// chunk's producer is in memory. The chunks are balanced (E split into
// ceil(E / C) chunks of equal size), and the last one runs on the same producer
// with the seeds that follow the batch in its unused envs, so one producer is
// built however E divides.
#pragma once

#include <trackgen/pipeline/track_generator.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace trackgen {

/// Generates the batch of `config` (config.num_envs envs, env e with base seed
/// k + e, epochs 0) on `space` in chunks of at most `chunk_envs` envs, in
/// order: for each chunk, calls `f(first, n, generator)` after its generate()
/// has finished (fenced), where the first n envs of generator.track() are envs
/// [first, first + n) of the batch, bit-identical to those envs of one
/// TrackGenerator of config.num_envs envs (n is smaller than the track's
/// num_envs() only in the last chunk). One producer, of
/// chunk_size(config.num_envs, chunk_envs) envs, is built. ConfigError before
/// any work for a bad config, chunk_envs < 1 or a base seed whose env seeds
/// would wrap (check_arange_seeds).
/// Envs per chunk of generate_chunked: `num_envs` split into
/// ceil(num_envs / chunk_envs) chunks of equal size (the last one may hold
/// fewer of the batch's envs).
inline int chunk_size(int num_envs, int chunk_envs) {
  const int chunks = (num_envs + chunk_envs - 1) / chunk_envs;
  return (num_envs + chunks - 1) / chunks;
}

template <class Space, class F>
void generate_chunked(const Space& space, const TrackGenConfig& config, std::int32_t k, int chunk_envs, F&& f,
                      Policy policy = Policy::automatic) {
  if (chunk_envs < 1) {
    throw ConfigError("trackgen::generate_chunked: chunk_envs must be >= 1, got " + std::to_string(chunk_envs));
  }
  config.validate();
  check_arange_seeds("trackgen::generate_chunked", k, config.num_envs);
  const int total = config.num_envs;
  TrackGenConfig c = config;
  c.num_envs = chunk_size(total, std::min(chunk_envs, total));
  const DView<std::int32_t, Space> seeds(Kokkos::view_alloc(space, label("chunked", "seeds")), c.num_envs);
  TrackGenerator<Space> gen(space, c, seeds);
  gen.set_policy(policy);
  for (int first = 0; first < total; first += c.num_envs) {
    // expand_seed(k + first, i) == expand_seed(k, first + i); only the last
    // chunk's unused envs may pass INT32_MAX (and wrap in uint32).
    detail::expand_seeds(space, seeds, expand_seed(k, first, SeedExpansion::arange), SeedExpansion::arange);
    gen.generate();
    gen.space().fence();
    f(first, std::min(c.num_envs, total - first), static_cast<const TrackGenerator<Space>&>(gen));
  }
}

}  // namespace trackgen

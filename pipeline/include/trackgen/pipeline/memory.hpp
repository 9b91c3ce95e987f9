// The memory estimate of a producer (docs/design.md#memory-estimate): the bytes
// a TrackGenerator or GateGenerator of a config allocates, computed from the
// config alone, and the limit the producers' constructors check it against
// before they allocate anything.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/gate_config.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

namespace trackgen {

/// The memory limit of a producer, in bytes: TRACKGEN_MEMORY_LIMIT_MB (MiB)
/// when the environment sets it (a whole number in [1, 2^40]; ConfigError
/// naming the variable for any other value), else 3/4 of the machine's
/// physical memory (the host's, for every backend), or 0 (no limit) when
/// neither is known. Read on every call.
std::size_t memory_limit_bytes();

/// Bytes a TrackGenerator<Space> of `config` (validated) allocates: its Track,
/// pipeline buffers, seeds, the generator's scratch (GeneratorSpec::scratch_bytes;
/// 0 for a generator that does not provide it) and the masked-regeneration
/// lane. Built-in generators: within 1% of the constructed producer's
/// device_bytes() (tested).
template <class Space = Kokkos::DefaultExecutionSpace>
std::size_t estimate_memory(const TrackGenConfig& config);

/// The same for a GateGenerator<Space> of `config` (validated).
template <class Space = Kokkos::DefaultExecutionSpace>
std::size_t estimate_gate_memory(const GateGenConfig& config);

/// The largest num_envs (at most the schema's bound, 2^20) for which a
/// TrackGenerator of `config` with that many envs is estimated within `limit`
/// bytes; 0 when not even one env fits.
template <class Space = Kokkos::DefaultExecutionSpace>
int max_envs_within(const TrackGenConfig& config, std::size_t limit);

/// The same for a GateGenerator of `config`.
template <class Space = Kokkos::DefaultExecutionSpace>
int max_gate_envs_within(const GateGenConfig& config, std::size_t limit);

/// Throws ConfigError naming `api`, the fields that drive the estimate, the
/// estimate, the limit and how many envs would fit, when the estimate of a
/// TrackGenerator of `config` exceeds `limit` (0: no limit).
template <class Space = Kokkos::DefaultExecutionSpace>
void check_memory(const TrackGenConfig& config, std::size_t limit, const std::string& api);

/// The same for a GateGenerator of `config`.
template <class Space = Kokkos::DefaultExecutionSpace>
void check_gate_memory(const GateGenConfig& config, std::size_t limit, const std::string& api);

}  // namespace trackgen

// The work estimate of a `trackgen serve` request (README.md, "Limits of the
// server"): how long generating, measuring and encoding a batch takes, computed
// from its config alone, so that a request too large for the server is refused
// before it runs. The unit is about one nanosecond of one core of the machine
// the weights were measured on (a 2-core x86-64 host, Kokkos OpenMP at one
// thread); each term is the count of the inner step that dominates a stage
// times that step's measured cost, with N_max standing for the beads of an env
// (the most it can hold), so the estimate errs on the high side.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/gate_config.hpp>

#include <string>
#include <vector>

namespace trackgen::app::serve {

/// One part of the estimate: what drives it and its work per env.
struct WorkTerm {
  std::string field;  ///< the config field that drives it most, e.g. "num_points"
  std::string what;   ///< e.g. "num_points^2 crossing tests of the generator's loop"
  double per_env = 0.0;
};

/// The estimated work of one batch.
struct WorkEstimate {
  std::vector<WorkTerm> terms;
  int num_envs = 0;

  /// Work per env: the sum of the terms.
  double per_env() const;
  /// Work of the batch: per_env() * num_envs.
  double total() const;
  /// The term with the most work.
  const WorkTerm& largest() const;
  /// The most envs of this config whose work stays within `limit` (0: none).
  int envs_within(double limit) const;
};

/// The estimate for a TrackGenConfig (validated), with checkpoints every
/// `checkpoint_spacing` when it is positive.
WorkEstimate estimate_track_work(const TrackGenConfig& c, double checkpoint_spacing);

/// The estimate for a GateGenConfig (validated).
WorkEstimate estimate_gate_work(const GateGenConfig& c);

}  // namespace trackgen::app::serve

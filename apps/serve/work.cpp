// The work estimate of a `trackgen serve` request (work.hpp). The weights were
// measured with `trackgen --threads 1 generate` (CPU time) on configs that
// stretch one field at a time; the stages and their inner steps are those of
// docs/algorithms.md.
#include "work.hpp"

#include <algorithm>
#include <cmath>

namespace trackgen::app::serve {
namespace {

// Cost of one inner step, in work units (about ns of one core).
constexpr double crossing_test = 6.0;        ///< one segment pair of a generator's loop crossing count
constexpr double spline_sample = 100.0;      ///< one dense spline sample of bezier / hull
constexpr double voronoi_pair = 25.0;        ///< one (site, control point) pair
constexpr double checkpoint_step = 150.0;    ///< one checkpoint of one candidate ring
constexpr double polar_pair = 1.0;           ///< one (knot, output point) pair
constexpr double repulsive_pair = 15.0;      ///< one vertex pair (or vertex-obstacle pair) of one iteration
constexpr double bead_pair = 2.0;            ///< one bead pair of validity and the pipeline's set-up
constexpr double relax_pair = 3.0;           ///< one bead pair of the relaxation's set-up
constexpr double cache_refresh_pair = 0.15;  ///< one bead pair of a separation-cache refresh
constexpr double separation_pair = 1.3;      ///< one bead pair of an all-pairs separation sweep
constexpr double slot_test = 1.7;            ///< one bead and cache slot of a relaxation sweep
constexpr double smoothing_step = 20.0;      ///< one bead of a smoothing pass
constexpr double noise_term = 25.0;          ///< one harmonic at one bead or gate
constexpr double encoded_point = 1000.0;     ///< one bead, gate or checkpoint: copies, metrics and its JSON
constexpr double gate_pair = 6.0;            ///< one gate pair of a separation round
constexpr double gate_check_pair = 5.0;      ///< one gate pair of validity
constexpr double anchor = 100.0;             ///< one anchor of a bezier / hull gate source

/// Iterations of each repulsive stage (the schedule of docs/algorithms.md#repulsive),
/// in double so that no config overflows it.
std::vector<double> repulsive_stage_iters(const TrackGenConfig& c) {
  const double lg = std::log1p(static_cast<double>(c.repulsive_ratchet_rate));
  const double n_ratchet = std::ceil(std::log(static_cast<double>(c.repulsive_grow_mult_max)) / lg);
  const double n_iters = std::ceil(1.6 * n_ratchet) + c.repulsive_settle_iters;
  const std::size_t n = c.repulsive_stages.size();
  std::vector<double> start(n, 0.0);
  for (std::size_t i = 1; i < n; ++i) {
    start[i] = std::max(std::min(std::ceil(static_cast<double>(i) * std::log(2.0) / lg), n_ratchet), start[i - 1]);
  }
  std::vector<double> iters(n);
  for (std::size_t i = 0; i < n; ++i) iters[i] = std::max((i + 1 < n ? start[i + 1] : n_iters) - start[i], 0.0);
  return iters;
}

double sq(double x) { return x * x; }

}  // namespace

double WorkEstimate::per_env() const {
  double w = 0.0;
  for (const WorkTerm& t : terms) w += t.per_env;
  return w;
}

double WorkEstimate::total() const { return per_env() * num_envs; }

const WorkTerm& WorkEstimate::largest() const {
  return *std::max_element(terms.begin(), terms.end(),
                           [](const WorkTerm& a, const WorkTerm& b) { return a.per_env < b.per_env; });
}

int WorkEstimate::envs_within(double limit) const {
  const double fit = std::floor(limit / per_env());
  return fit >= num_envs ? num_envs : static_cast<int>(std::max(fit, 0.0));
}

WorkEstimate estimate_track_work(const TrackGenConfig& c, double checkpoint_spacing) {
  WorkEstimate w;
  w.num_envs = c.num_envs;
  const double n = c.num_points, beads = c.N_max;
  const auto add = [&w](std::string field, std::string what, double per_env) {
    w.terms.push_back({std::move(field), std::move(what), per_env});
  };

  if (c.generator == "polar") {
    add("polar_num_knots", "polar_num_knots x num_points of the polar loop",
        polar_pair * std::max(c.polar_num_knots, 4) * n);
  } else if (c.generator == "repulsive") {
    const std::vector<double> iters = repulsive_stage_iters(c);
    const double obstacles = 96.0 + 12.0 * c.repulsive_obstacle_count_max;
    double pairs = 0.0;
    for (std::size_t i = 0; i < iters.size(); ++i) {
      const double m = c.repulsive_stages[i];
      pairs += iters[i] * (m * m + m * obstacles);
    }
    add("repulsive_stages", "repulsive_stages^2 x iterations of the repulsive solve", repulsive_pair * pairs);
  } else {
    // bezier, hull, voronoi, checkpoint and registered generators: the loop's crossing count.
    add("num_points", "num_points^2 crossing tests of the generator's loop", crossing_test * n * n);
    if (c.generator == "bezier" || c.generator == "hull") {
      add("num_points_per_segment", "max_num_points x num_points_per_segment spline samples",
          spline_sample * c.max_num_points * static_cast<double>(c.num_points_per_segment));
    } else if (c.generator == "voronoi") {
      add("voronoi_num_sites", "voronoi_num_sites x voronoi_control_points",
          voronoi_pair * c.voronoi_num_sites * static_cast<double>(c.voronoi_control_points));
    } else if (c.generator == "checkpoint") {
      add("checkpoint_best_of_k", "checkpoint_best_of_k x checkpoint_count candidate rings",
          checkpoint_step * c.checkpoint_best_of_k * static_cast<double>(c.checkpoint_count));
    }
  }
  add("N_max", "N_max^2 bead pairs of validity", bead_pair * beads * beads);
  add("N_max", "N_max beads: resampling, inflation, metrics and the JSON answer", encoded_point * beads);
  if (c.relax_enable) {
    const double refreshes = std::ceil(static_cast<double>(c.relax_iters) / c.relax_sep_every);
    const bool cache = c.relax_sep_cache_slots > 0 && c.relax_sep_every > 1;
    add("N_max", "N_max^2 bead pairs of the relaxation set-up", relax_pair * beads * beads);
    add("relax_sep_every",
        cache ? "N_max^2 x relax_iters / relax_sep_every separation-cache refreshes"
              : "N_max^2 x relax_iters / relax_sep_every all-pairs separation sweeps",
        (cache ? cache_refresh_pair : separation_pair) * refreshes * beads * beads);
    add("relax_iters", "N_max x relax_iters x relax_sep_cache_slots relaxation sweeps",
        slot_test * c.relax_iters * beads * (c.relax_sep_cache_slots + 10.0));
    add("relax_smooth_spacing_iters", "N_max x (relax_smooth_passes + relax_smooth_spacing_iters) smoothing",
        smoothing_step * beads * (static_cast<double>(c.relax_smooth_passes) + c.relax_smooth_spacing_iters));
  }
  if (c.z_profile == ZProfile::noise) {
    add("z_noise_harmonics", "N_max x z_noise_harmonics elevation", noise_term * beads * c.z_noise_harmonics);
  }
  if (checkpoint_spacing > 0.0) {
    // An untruncated env's perimeter is below N_max * spacing.
    const double checkpoints = std::ceil(beads * c.resolved_spacing() / checkpoint_spacing) + 1.0;
    add("checkpoint_spacing", "checkpoints: N_max x spacing / checkpoint_spacing", 2.0 * encoded_point * checkpoints);
  }
  return w;
}

WorkEstimate estimate_gate_work(const GateGenConfig& c) {
  WorkEstimate w;
  w.num_envs = c.num_envs;
  const auto add = [&w](std::string field, std::string what, double per_env) {
    w.terms.push_back({std::move(field), std::move(what), per_env});
  };
  // The real gates of an env: at most max_gates, and at most what the source emits.
  double gates = c.max_gates;
  if (c.generator == "polar") {
    gates = std::min(gates, static_cast<double>(std::max(c.polar_num_knots, 4)));
    add("polar_num_knots", "polar_num_knots anchors", anchor * gates);
  } else if (c.generator == "voronoi") {
    gates = std::min(gates, static_cast<double>(c.voronoi_control_points));
    add("voronoi_num_sites", "voronoi_num_sites x voronoi_control_points",
        voronoi_pair * c.voronoi_num_sites * static_cast<double>(c.voronoi_control_points));
  } else if (c.generator == "checkpoint") {
    gates = std::min(gates, static_cast<double>(c.checkpoint_count));
    add("checkpoint_count", "checkpoint_count anchors", checkpoint_step * c.checkpoint_count);
  } else if (c.generator == "bezier" || c.generator == "hull") {
    gates = std::min(gates, static_cast<double>(c.max_num_points));
    add("max_num_points", "max_num_points anchors", anchor * c.max_num_points);
  }
  add("gate_solve_iters", "max_gates^2 x gate_solve_iters separation rounds",
      gate_pair * c.gate_solve_iters * sq(gates) / 2.0);
  add("max_gates", "max_gates^2 gate pairs of validity", gate_check_pair * sq(gates));
  add("max_gates", "max_gates gates: frames and the JSON answer", encoded_point * c.max_gates);
  if (c.z_profile == ZProfile::noise) {
    add("z_noise_harmonics", "max_gates x z_noise_harmonics elevation", noise_term * gates * c.z_noise_harmonics);
  }
  return w;
}

}  // namespace trackgen::app::serve

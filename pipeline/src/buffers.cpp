// PipelineBuffers (docs/design.md#buffers), the host-side constants of the stages
// and the Chebyshev schedule.
#include "pipeline_detail.hpp"

#include <trackgen/core/errors.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <type_traits>

namespace trackgen {
namespace {

/// Slots per bead of the separation cache (0: no cache, i.e. relax_sep_cache_slots
/// is 0 or the broadphase is refreshed every sweep).
int cache_slots_of(const TrackGenConfig& c) {
  return c.relax_sep_cache_slots > 0 && c.relax_sep_every > 1 ? c.relax_sep_cache_slots : 0;
}

/// Elevation knots per env (0 unless the z profile is knot-based).
int z_knots_of(const TrackGenConfig& c) { return z_uses_knots(c.z_profile) ? c.z_control_points : 0; }

/// Whether the relaxation blends Chebyshev steps.
bool chebyshev_of(const TrackGenConfig& c) { return c.relax_accel == RelaxAccel::chebyshev; }

/// How window() and with_scratch() treat a buffer of the plan.
enum class BufferScope {
  batch,    ///< per env of the batch (E): narrowed by window()
  scratch,  ///< per env of the stages' scratch (W): narrowed by with_scratch()
  unit,     ///< the solve's units (U) or whole: shared by windows and parts
};

}  // namespace

PipelineConstants pipeline_constants(const TrackGenConfig& c) {
  const double hw = as_python_double(c.half_width);
  const double margin = as_python_double(c.relax_margin);
  const double target = 2.0 * hw * (1.0 + margin);
  PipelineConstants k;
  k.spacing = c.resolved_spacing();
  k.half_width = c.half_width;
  k.two_hw = static_cast<float>(2.0 * hw);
  k.target = static_cast<float>(target);
  k.cache_radius = static_cast<float>(target * (1.0 + as_python_double(c.relax_sep_cache_skin)));
  k.r_min = static_cast<float>(hw * (1.0 + margin));
  k.weights = {c.relax_sep_relax, c.relax_spc_relax, c.relax_bend_relax};
  k.cheby_gamma = c.relax_cheby_gamma;
  k.min_thickness = static_cast<float>((1.0 - as_python_double(c.relax_tol)) * hw);
  k.turning_tol = c.turning_tol;
  k.w_floor = c.w_floor;
  k.z = z_params(c);
  k.z_valid_grade = c.z_valid_grade;
  k.use_cache = cache_slots_of(c) > 0;
  k.chebyshev = chebyshev_of(c);
  return k;
}

std::vector<float> chebyshev_schedule(const TrackGenConfig& c) {
  std::vector<float> w;
  if (!chebyshev_of(c) || c.relax_iters <= c.relax_cheby_start) return w;
  const double rho2 = as_python_double(c.relax_cheby_rho) * as_python_double(c.relax_cheby_rho);
  double prev = 1.0;
  for (int j = 0; j < c.relax_iters - c.relax_cheby_start; ++j) {
    const double omega = j == 0 ? 1.0 : (j == 1 ? 2.0 / (2.0 - rho2) : 4.0 / (4.0 - rho2 * prev));
    w.push_back(static_cast<float>(omega));
    prev = omega;
  }
  return w;
}

template <class Space>
typename PipelineBuffers<Space>::Plan PipelineBuffers<Space>::plan_of(const TrackGenConfig& c, int window_envs) {
  Plan p;
  p.envs = static_cast<std::size_t>(c.num_envs);
  p.scratch = static_cast<std::size_t>(window_envs > 0 ? window_envs : c.num_envs);
  p.units = static_cast<std::size_t>(detail::relax_scratch_units<Space>(c.num_envs));
  p.num_points = c.num_points;
  p.n_max = c.N_max;
  p.cache_slots = cache_slots_of(c);
  p.cell_table = static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::max(c.N_max, 1))));
  p.z_knots = z_knots_of(c);
  p.chains = chebyshev_of(c) ? 3 : 2;
  p.cheby = chebyshev_schedule(c).size();
  return p;
}

template <class Space>
typename PipelineBuffers<Space>::Plan PipelineBuffers<Space>::plan() const {
  Plan p;
  p.envs = static_cast<std::size_t>(num_envs_);
  p.scratch = static_cast<std::size_t>(scratch_envs_);
  p.units = static_cast<std::size_t>(relax_units_);
  p.num_points = num_points_;
  p.n_max = n_max_;
  p.cache_slots = cache_slots_;
  p.cell_table = cell_table_;
  p.z_knots = z_knots_;
  p.chains = relax_chain_count();
  p.cheby = cheby_omega_host.size();
  return p;
}

/// Calls f(name, buffer, scope, per, count, columns) for every buffer of the
/// plan `p` in `b` (PipelineBuffers or const PipelineBuffers), in allocation
/// order: its label name, the member, how windows treat it, its entries per
/// env (or per unit) `per`, its extent `count` (= per * E, W or U) and, for
/// the 2D separation cache, its second extent `columns` (else 1). Buffers of a
/// mode that is off are not listed (they stay empty).
template <class Space>
template <class B, class F>
void PipelineBuffers<Space>::for_each_buffer(B& b, const Plan& p, F&& f) {
  const std::size_t E = p.envs, W = p.scratch, U = p.units;
  const std::size_t N = static_cast<std::size_t>(p.num_points), M = static_cast<std::size_t>(p.n_max);
  const auto batch = [&](const char* name, auto& v, std::size_t per) { f(name, v, BufferScope::batch, per, E * per, 1); };
  const auto scratch = [&](const char* name, auto& v, std::size_t per) {
    f(name, v, BufferScope::scratch, per, W * per, 1);
  };
  const auto unit = [&](const char* name, auto& v, std::size_t per, std::size_t columns = 1) {
    f(name, v, BufferScope::unit, per, U * per, columns);
  };
  // The generator's output and the constant-spacing chain, then the stages' scratch.
  batch("gen_centerline", b.gen_centerline, N);
  batch("gen_valid", b.gen_valid, 1);
  batch("cs_center", b.cs_center, M);
  scratch("arc_s", b.arc_s, std::max(M, N) + 1);
  scratch("band", b.band, 1);
  scratch("L0", b.l0, 1);
  scratch("relaxed", b.relaxed, M);
  const std::size_t chain = static_cast<std::size_t>(relax_chain_stride_for(p.n_max));
  unit("relax_chains", b.relax_chains, chain * 2 * static_cast<std::size_t>(p.chains));
  unit("relax_sep", b.relax_sep, static_cast<std::size_t>(relax_bead_stride_for(p.n_max)) * 3);
  f("cheby_omega", b.cheby_omega, BufferScope::unit, p.cheby, p.cheby, 1);
  if (p.cache_slots > 0) {
    unit("sep_cache_idx", b.sep_cache_idx, M, static_cast<std::size_t>(p.cache_slots));
    unit("sep_cache_count", b.sep_cache_count, M);
    unit("sep_overflow_flag", b.sep_overflow_flag, M);
    if constexpr (detail::relax_host_lanes<Space>()) {
      unit("sep_cache_split", b.sep_cache_split, detail::host_split_words(p.n_max, p.cache_slots));
    }
  }
  scratch("ctr2", b.ctr2, M);
  scratch("seg", b.seg, M);
  scratch("turn", b.turn, M);
  scratch("kappa", b.kappa, M);
  scratch("cell_start", b.cell_start, static_cast<std::size_t>(p.cell_table) + 1);
  scratch("cell_items", b.cell_items, M);
  scratch("env_band", b.env_band, 1);
  scratch("env_flip", b.env_flip, 1);
  if (p.z_knots > 0) scratch("z_knots", b.z_knots, static_cast<std::size_t>(p.z_knots));
}

template <class Space>
PipelineBuffers<Space>::PipelineBuffers(const Space& space, const TrackGenConfig& c, int window_envs)
    : relax_iters_(c.relax_iters), cheby_start_(c.relax_cheby_start), cheby_rho_(c.relax_cheby_rho) {
  const std::string api = "trackgen::PipelineBuffers";
  if (c.num_envs < 1) throw ConfigError(api + ": num_envs must be >= 1, got " + std::to_string(c.num_envs));
  if (c.num_points < 2) throw ConfigError(api + ": num_points must be >= 2, got " + std::to_string(c.num_points));
  if (c.N_max < 1) throw ConfigError(api + ": N_max must be >= 1, got " + std::to_string(c.N_max));
  if (window_envs < 0 || window_envs > c.num_envs ||
      (window_envs > 0 && window_envs < c.num_envs && !detail::relax_host_lanes<Space>())) {
    throw ConfigError(api + ": window_envs = " + std::to_string(window_envs) + " must be 0 or in [1, num_envs = " +
                      std::to_string(c.num_envs) +
                      "], and below num_envs only where the relaxation's scratch is per thread (host spaces)");
  }
  const Plan p = plan_of(c, window_envs);
  num_envs_ = static_cast<int>(p.envs);
  scratch_envs_ = static_cast<int>(p.scratch);
  num_points_ = p.num_points;
  n_max_ = p.n_max;
  cache_slots_ = p.cache_slots;
  chebyshev_ = p.chains == 3;
  cell_table_ = p.cell_table;
  relax_units_ = static_cast<int>(p.units);
  z_knots_ = p.z_knots;

  // Every buffer of the plan, zero-initialized on `space` (view_alloc with the
  // instance); the point buffers then NaN-filled: every buffer is fully
  // rewritten by each run, so this only makes a never-run pipeline read as
  // "no track".
  cheby_omega_host = chebyshev_schedule(c);
  for_each_buffer(*this, p,
                  [&](const char* name, auto& v, BufferScope, std::size_t, std::size_t n, std::size_t columns) {
                    using View = std::decay_t<decltype(v)>;
                    if constexpr (View::rank == 2) {
                      v = View(Kokkos::view_alloc(space, label("pipeline", name)), n, columns);
                    } else {
                      v = View(Kokkos::view_alloc(space, label("pipeline", name)), n);
                      if constexpr (std::is_same_v<typename View::value_type, Vec2f>) {
                        Kokkos::deep_copy(space, v, nan2());
                      }
                    }
                  });
  {
    auto h = Kokkos::create_mirror_view(cheby_omega);
    for (std::size_t j = 0; j < cheby_omega_host.size(); ++j) h(j) = cheby_omega_host[j];
    Kokkos::deep_copy(space, cheby_omega, h);
    space.fence();  // `h` dies at the end of this scope
  }
  truncated_host = HostIntView(label("pipeline", "truncated_host"), static_cast<std::size_t>(num_envs_));
  space.fence();
}

template <class Space>
void PipelineBuffers<Space>::check(const TrackGenConfig& c, const char* api) const {
  auto fail = [&](const char* field, long long got, long long want) {
    throw ConfigError(std::string(api) + ": config." + field + " = " + std::to_string(got) +
                      " does not match the PipelineBuffers, allocated for " + std::to_string(want));
  };
  if (c.num_envs != num_envs_) fail("num_envs", c.num_envs, num_envs_);
  if (scratch_envs_ < num_envs_) {
    throw ConfigError(std::string(api) + ": the PipelineBuffers hold the stages' scratch for " +
                      std::to_string(scratch_envs_) + " of their " + std::to_string(num_envs_) +
                      " envs; run the stages on window()s of at most that many");
  }
  if (c.num_points != num_points_) fail("num_points", c.num_points, num_points_);
  if (c.N_max != n_max_) fail("N_max", c.N_max, n_max_);
  const int slots = cache_slots_of(c);
  if (slots != cache_slots_) fail("relax_sep_cache_slots (effective)", slots, cache_slots_);
  if (chebyshev_of(c) != chebyshev_) fail("relax_accel == \"chebyshev\"", chebyshev_of(c), chebyshev_);
  const int knots = z_knots_of(c);
  if (knots != z_knots_) fail("z_control_points (knots of the z profile)", knots, z_knots_);
  if (chebyshev_ &&
      (c.relax_iters != relax_iters_ || c.relax_cheby_start != cheby_start_ || c.relax_cheby_rho != cheby_rho_)) {
    throw ConfigError(std::string(api) +
                      ": config.relax_iters / relax_cheby_start / relax_cheby_rho differ from the ones the "
                      "PipelineBuffers' Chebyshev schedule was built for");
  }
}

template <class Space>
PipelineBuffers<Space> PipelineBuffers<Space>::window(int first, int n) const {
  const std::string api = "trackgen::PipelineBuffers::window";
  if (!detail::relax_host_lanes<Space>()) {
    throw ConfigError(api + ": the relaxation's scratch is per env on this space; only a whole batch runs");
  }
  if (first < 0 || n < 1 || n > scratch_envs_ || first > num_envs_ - n) {
    throw ConfigError(api + ": envs [" + std::to_string(first) + ", " + std::to_string(first) + " + " +
                      std::to_string(n) + ") are not a non-empty range of the buffers' " + std::to_string(num_envs_) +
                      " envs of at most scratch_envs() = " + std::to_string(scratch_envs_));
  }
  // The batch's buffers at envs [first, first + n); the scratch's at the
  // same envs, or at its start when it holds fewer envs than the batch.
  const std::size_t at = static_cast<std::size_t>(first);
  PipelineBuffers w = with_scratch(scratch_envs_ < num_envs_ ? 0u : at, n);
  w.num_envs_ = n;
  for_each_buffer(w, plan(), [&](const char*, auto& v, BufferScope scope, std::size_t per, std::size_t, std::size_t) {
    if (scope != BufferScope::batch) return;
    v = std::decay_t<decltype(v)>(v.data() + at * per, static_cast<std::size_t>(n) * per);
  });
  return w;
}

template <class Space>
PipelineBuffers<Space> PipelineBuffers<Space>::part(int p, int parts) const {
  const std::string api = "trackgen::PipelineBuffers::part";
  if (!detail::relax_host_lanes<Space>()) {
    throw ConfigError(api + ": the relaxation's scratch is per env on this space; only a whole batch runs");
  }
  if (parts < 1 || p < 0 || p >= parts || scratch_envs_ % parts != 0 || relax_units_ % parts != 0) {
    throw ConfigError(api + ": part " + std::to_string(p) + " of " + std::to_string(parts) +
                      " is not one of equal parts of the buffers' scratch_envs() = " + std::to_string(scratch_envs_) +
                      " and relax_units() = " + std::to_string(relax_units_));
  }
  const int n = scratch_envs_ / parts, units = relax_units_ / parts;
  PipelineBuffers w = with_scratch(static_cast<std::size_t>(p) * static_cast<std::size_t>(n), n);
  w.relax_units_ = units;
  w.relax_unit_base_ = relax_unit_base_ + p * units;
  return w;
}

template <class Space>
PipelineBuffers<Space> PipelineBuffers<Space>::with_scratch(std::size_t first, int n) const {
  PipelineBuffers w = *this;
  w.scratch_envs_ = n;
  for_each_buffer(w, plan(), [&](const char*, auto& v, BufferScope scope, std::size_t per, std::size_t, std::size_t) {
    if (scope != BufferScope::scratch || v.extent(0) == 0) return;
    v = std::decay_t<decltype(v)>(v.data() + first * per, static_cast<std::size_t>(n) * per);
  });
  return w;
}

template <class Space>
std::size_t PipelineBuffers<Space>::bytes_for(const TrackGenConfig& c, int window_envs) {
  // The plan the constructor allocates, counted without allocating.
  std::size_t b = 0;
  PipelineBuffers none;
  for_each_buffer(none, plan_of(c, window_envs),
                  [&](const char*, auto& v, BufferScope, std::size_t, std::size_t n, std::size_t columns) {
                    b += sizeof(typename std::decay_t<decltype(v)>::value_type) * n * columns;
                  });
  return b;
}

template <class Space>
std::size_t PipelineBuffers<Space>::device_bytes() const {
  std::size_t b = 0;
  for_each_buffer(*this, plan(), [&](const char*, const auto& v, BufferScope, std::size_t, std::size_t, std::size_t) {
    b += view_bytes(v);
  });
  return b;
}

#define TRACKGEN_INSTANTIATE_BUFFERS(S) template class PipelineBuffers<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_BUFFERS)

}  // namespace trackgen

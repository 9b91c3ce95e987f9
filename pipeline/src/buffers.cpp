// PipelineBuffers (docs/design.md#buffers), the host-side constants of the stages
// and the Chebyshev schedule.
#include "pipeline_detail.hpp"

#include <trackgen/core/errors.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

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
PipelineBuffers<Space>::PipelineBuffers(const Space& space, const TrackGenConfig& c, int window_envs)
    : num_envs_(c.num_envs),
      scratch_envs_(window_envs > 0 ? window_envs : c.num_envs),
      num_points_(c.num_points),
      n_max_(c.N_max),
      cache_slots_(cache_slots_of(c)),
      chebyshev_(chebyshev_of(c)),
      cell_table_(static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::max(c.N_max, 1))))),
      relax_units_(detail::relax_scratch_units<Space>(c.num_envs)),
      z_knots_(z_knots_of(c)),
      relax_iters_(c.relax_iters),
      cheby_start_(c.relax_cheby_start),
      cheby_rho_(c.relax_cheby_rho) {
  const char* api = "trackgen::PipelineBuffers";
  if (num_envs_ < 1) throw ConfigError(std::string(api) + ": num_envs must be >= 1, got " + std::to_string(num_envs_));
  if (num_points_ < 2) {
    throw ConfigError(std::string(api) + ": num_points must be >= 2, got " + std::to_string(num_points_));
  }
  if (n_max_ < 1) throw ConfigError(std::string(api) + ": N_max must be >= 1, got " + std::to_string(n_max_));
  if (window_envs < 0 || window_envs > num_envs_ || (window_envs > 0 && window_envs < num_envs_ &&
                                                      !detail::relax_host_lanes<Space>())) {
    throw ConfigError(std::string(api) + ": window_envs = " + std::to_string(window_envs) +
                      " must be 0 or in [1, num_envs = " + std::to_string(num_envs_) +
                      "], and below num_envs only where the relaxation's scratch is per thread (host spaces)");
  }

  // E: the batch's envs (the generator output and the pre-relax chain); W:
  // the envs of the stages' scratch (docs/design.md#windows).
  const std::size_t E = static_cast<std::size_t>(num_envs_), W = static_cast<std::size_t>(scratch_envs_);
  const std::size_t M = W * static_cast<std::size_t>(n_max_);
  const std::size_t scan = W * (static_cast<std::size_t>(std::max(n_max_, num_points_)) + 1);

  // Zero-initialized on `space` (view_alloc with the instance), then the point
  // buffers are NaN-filled: every buffer is fully rewritten by each run, so this
  // only makes a never-run pipeline read as "no track".
  auto vec2 = [&](Vec2View& v, const char* name, std::size_t n) {
    v = Vec2View(Kokkos::view_alloc(space, label("pipeline", name)), n);
    Kokkos::deep_copy(space, v, nan2());
  };
  auto flt = [&](FloatView& v, const char* name, std::size_t n) {
    v = FloatView(Kokkos::view_alloc(space, label("pipeline", name)), n);
  };
  auto i32 = [&](IntView& v, const char* name, std::size_t n) {
    v = IntView(Kokkos::view_alloc(space, label("pipeline", name)), n);
  };

  vec2(gen_centerline, "gen_centerline", E * static_cast<std::size_t>(num_points_));
  i32(gen_valid, "gen_valid", E);
  vec2(cs_center, "cs_center", E * static_cast<std::size_t>(n_max_));
  flt(arc_s, "arc_s", scan);

  i32(band, "band", W);
  flt(l0, "L0", W);
  vec2(relaxed, "relaxed", M);
  // The solve's scratch, per unit (relax_units(): envs, or host threads).
  const std::size_t U = static_cast<std::size_t>(relax_units_), UM = U * static_cast<std::size_t>(n_max_);
  flt(relax_chains, "relax_chains",
      U * static_cast<std::size_t>(relax_chain_stride()) * 2 * static_cast<std::size_t>(relax_chain_count()));
  const std::size_t B = U * static_cast<std::size_t>(relax_bead_stride());
  flt(relax_sep, "relax_sep", B * 3);
  cheby_omega_host = chebyshev_schedule(c);
  flt(cheby_omega, "cheby_omega", cheby_omega_host.size());
  {
    auto h = Kokkos::create_mirror_view(cheby_omega);
    for (std::size_t j = 0; j < cheby_omega_host.size(); ++j) h(j) = cheby_omega_host[j];
    Kokkos::deep_copy(space, cheby_omega, h);
    space.fence();  // `h` dies at the end of this scope
  }
  if (cache_slots_ > 0) {
    sep_cache_idx = CacheView(Kokkos::view_alloc(space, label("pipeline", "sep_cache_idx")), UM,
                              static_cast<std::size_t>(cache_slots_));
    i32(sep_cache_count, "sep_cache_count", UM);
    i32(sep_overflow_flag, "sep_overflow_flag", UM);
    if (detail::relax_host_lanes<Space>()) {
      i32(sep_cache_split, "sep_cache_split", U * detail::host_split_words(n_max_, cache_slots_));
    }
  }

  vec2(ctr2, "ctr2", M);
  flt(seg, "seg", M);
  flt(turn, "turn", M);
  flt(kappa, "kappa", M);
  i32(cell_start, "cell_start", W * (static_cast<std::size_t>(cell_table_) + 1));
  i32(cell_items, "cell_items", M);
  i32(env_band, "env_band", W);
  i32(env_flip, "env_flip", W);
  if (z_knots_ > 0) flt(z_knots, "z_knots", W * static_cast<std::size_t>(z_knots_));

  truncated_host = HostIntView(label("pipeline", "truncated_host"), E);
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
  auto part = [&](auto& v, std::size_t per_env) {
    v = std::decay_t<decltype(v)>(v.data() + at * per_env, static_cast<std::size_t>(n) * per_env);
  };
  part(w.gen_centerline, static_cast<std::size_t>(num_points_));
  part(w.gen_valid, 1);
  part(w.cs_center, static_cast<std::size_t>(n_max_));
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
  auto part = [&](auto& v, std::size_t per_env) {
    if (v.extent(0) == 0) return;
    v = std::decay_t<decltype(v)>(v.data() + first * per_env, static_cast<std::size_t>(n) * per_env);
  };
  const std::size_t M = static_cast<std::size_t>(n_max_);
  part(w.arc_s, static_cast<std::size_t>(std::max(n_max_, num_points_)) + 1);
  part(w.band, 1);
  part(w.l0, 1);
  part(w.relaxed, M);
  part(w.ctr2, M);
  part(w.seg, M);
  part(w.turn, M);
  part(w.kappa, M);
  part(w.cell_start, static_cast<std::size_t>(cell_table_) + 1);
  part(w.cell_items, M);
  part(w.env_band, 1);
  part(w.env_flip, 1);
  part(w.z_knots, static_cast<std::size_t>(z_knots_));
  return w;
}

template <class Space>
std::size_t PipelineBuffers<Space>::bytes_for(const TrackGenConfig& c, int window_envs) {
  // The allocations of the constructor, in its order.
  const std::size_t E = static_cast<std::size_t>(c.num_envs);
  const std::size_t W = static_cast<std::size_t>(window_envs > 0 ? window_envs : c.num_envs);
  const std::size_t M = W * static_cast<std::size_t>(c.N_max);
  const std::size_t scan = W * (static_cast<std::size_t>(std::max(c.N_max, c.num_points)) + 1);
  const std::size_t v2 = sizeof(Vec2f), f = sizeof(float), i = sizeof(std::int32_t);
  const std::size_t chains = chebyshev_of(c) ? 3 : 2, slots = static_cast<std::size_t>(cache_slots_of(c));
  const std::size_t cells = std::bit_ceil(static_cast<unsigned>(std::max(c.N_max, 1)));
  std::size_t b = E * static_cast<std::size_t>(c.num_points) * v2 + E * i +
                  E * static_cast<std::size_t>(c.N_max) * v2 + scan * f;
  const std::size_t U = static_cast<std::size_t>(detail::relax_scratch_units<Space>(c.num_envs));
  const std::size_t UM = U * static_cast<std::size_t>(c.N_max);
  const std::size_t chain_floats = U * static_cast<std::size_t>(relax_chain_stride_for(c.N_max)) * 2 * chains;
  const std::size_t B = U * static_cast<std::size_t>(relax_bead_stride_for(c.N_max));
  b += W * (i + f) + M * v2 + chain_floats * f + B * 3 * f + chebyshev_schedule(c).size() * f;
  if (slots > 0)
    b += UM * slots * i + 2 * UM * i +
         (detail::relax_host_lanes<Space>() ? U * detail::host_split_words(c.N_max, static_cast<int>(slots)) * i : 0);
  b += M * v2 + 3 * M * f + W * (cells + 1) * i + M * i + 2 * W * i;
  b += W * static_cast<std::size_t>(z_knots_of(c)) * f;
  return b;
}

template <class Space>
std::size_t PipelineBuffers<Space>::device_bytes() const {
  return view_bytes(gen_centerline) + view_bytes(gen_valid) + view_bytes(cs_center) + view_bytes(arc_s) +
         view_bytes(band) + view_bytes(l0) + view_bytes(relaxed) + view_bytes(relax_chains) + view_bytes(relax_sep) +
         view_bytes(cheby_omega) + view_bytes(sep_cache_idx) + view_bytes(sep_cache_count) +
         view_bytes(sep_overflow_flag) + view_bytes(sep_cache_split) + view_bytes(ctr2) + view_bytes(seg) +
         view_bytes(turn) + view_bytes(kappa) + view_bytes(cell_start) + view_bytes(cell_items) + view_bytes(env_band) +
         view_bytes(env_flip) + view_bytes(z_knots);
}

#define TRACKGEN_INSTANTIATE_BUFFERS(S) template class PipelineBuffers<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_BUFFERS)

}  // namespace trackgen

// Internal (in-tree, not installed; not in the umbrella header): the track
// pipeline after the generator (docs/algorithms.md#pipeline): constant-spacing
// resample, relaxation, inflation and validity, as separate stage functions over
// the preallocated PipelineBuffers, so a benchmark (perf/) and the tests can time
// and check each stage, and a graph layer can record them
// (docs/design.md#adding-a-pipeline-stage). TrackGenerator holds its buffers
// behind a pointer, so its public header does not bring this one in.
//
// Every stage:
//  - issues all of its device work through the LaunchContext (one instance);
//  - allocates nothing and reads nothing back to the host (capturable);
//  - gives results that do not depend on scheduling: every float is computed by
//    one thread, and every per-env float reduction runs in a fixed order on one
//    thread (no float atomics, no float team reductions), so Serial and OpenMP at
//    any thread count are bitwise identical.
//
// Parallelisation (details in pipeline/src/*.cpp): one team per env (team size 1
// on host spaces, 128 threads on GPUs), one team thread per bead for per-point
// work (lookups, frames, sweeps, thickness), one thread of the team for the
// sequential per-env scans (arc-length tables, areas, turning) and reductions.
// The whole relaxation solve of an env is one team kernel: the sweeps are
// separated by team barriers, so the env's chain stays in cache across sweeps.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/elevation.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trackgen {

/// The weights of the relaxation's three constraints in a sweep.
struct RelaxWeights {
  float separation = 0;  ///< relax_sep_relax
  float spacing = 0;     ///< relax_spc_relax
  float bending = 0;     ///< relax_bend_relax
};

/// Scalar constants every stage derives from a config, computed once on the host.
/// Products of config fields are evaluated in double from the fields' shortest
/// decimal representation (the values a Python config holds) and rounded once
/// to float, as the original system passes host-computed doubles to float32
/// kernels.
struct PipelineConstants {
  float spacing = 0;      ///< arc step of the constant-spacing resample (`spacing` or 0.6 hw)
  float half_width = 0;   ///< hw
  float two_hw = 0;       ///< 2 hw (separation band width)
  float target = 0;       ///< separation target 2 hw (1 + margin)
  float cache_radius = 0; ///< broadphase radius target (1 + skin)
  float r_min = 0;        ///< bending radius guard hw (1 + margin)
  RelaxWeights weights;   ///< separation, spacing and bending weights
  float cheby_gamma = 0;  ///< Chebyshev damping gamma
  float min_thickness = 0;  ///< validity: thickness >= (1 - relax_tol) hw
  float turning_tol = 0;  ///< validity: ||turn| - 2 pi| <= tol
  float w_floor = 0;      ///< validity: hw > w_floor
  ZParams z;              ///< elevation profile (docs/algorithms.md#elevation)
  float z_valid_grade = 0; ///< validity: |dz| <= grade * plan-view step; 0 = off
  bool use_cache = false; ///< cached broadphase: relax_sep_cache_slots > 0 and relax_sep_every > 1
  bool chebyshev = false; ///< relax_accel == RelaxAccel::chebyshev
};

/// The constants of `config` (see PipelineConstants).
PipelineConstants pipeline_constants(const TrackGenConfig& config);

/// Chebyshev over-relaxation factors of sweeps relax_cheby_start .. relax_iters-1
/// (entry j is sweep start + j): 1, 2 / (2 - rho^2), then 4 / (4 - rho^2 w_prev),
/// computed in double and rounded to float (docs/algorithms.md#chebyshev). Empty
/// when relax_accel is none or relax_iters <= relax_cheby_start.
std::vector<float> chebyshev_schedule(const TrackGenConfig& config);

/// All scratch of the pipeline (docs/design.md#buffers), allocated once from a
/// config and reused by every run. The stage functions below read and write its
/// members; a TrackGenerator owns one and exposes what an application needs
/// through purpose-named accessors. Per-point buffers use the Track's flat stride:
/// env e owns [e*S, (e+1)*S) with S = N_max (or N = num_points for the generator
/// output). Labels are "TrackGen::pipeline::<name>". E is num_envs(); W, in
/// the extents of the stages' own per-env scratch, is scratch_envs() (E
/// unless the buffers were allocated for windows).
///
/// One list of the buffers, for_each_buffer (buffers.cpp), gives each its
/// label, extent and scope: the constructor allocates by it, device_bytes()
/// and bytes_for() count by it, window() and part() narrow by it.
///
/// Differences from the original system's list: no constant width buffer `w` (the
/// width is the scalar hw, so the width floor is the scalar test hw > w_floor);
/// no area_a/area_b (the offset areas are summed by one thread per env in
/// registers); no tan2/nrm2/out2/inn2 staging (frames and borders are written
/// straight into the Track and the pair tests read them there); the grid of
/// the pair tests (cell_start, cell_items) instead of a per-point thickness
/// buffer; the Chebyshev buffer and the separation cache only when their mode
/// is on.
template <class Space>
class PipelineBuffers {
 public:
  using execution_space = Space;
  using memory_space = typename Space::memory_space;
  using IntView = DView<std::int32_t, Space>;
  using FloatView = DView<float, Space>;
  using Vec2View = DView<Vec2f, Space>;
  /// [beads, slots], slot-major (LayoutLeft): the k-th candidates of an env's
  /// beads are contiguous, for coalesced reads on GPUs and vector loads on hosts.
  using CacheView = Kokkos::View<std::int32_t**, Kokkos::LayoutLeft, memory_space>;
  using HostIntView = compat::host_mirror_t<IntView>;

  PipelineBuffers() = default;

  /// Allocates everything for `config` (which must be valid) on the instance
  /// `space`. With `window_envs` W in [1, num_envs) (host spaces with the
  /// host loop shapes only), the stages' per-env scratch (every per-env
  /// buffer but gen_centerline, gen_valid and cs_center) holds W envs, and
  /// the stages run on window()s of at most W envs, each reusing that
  /// scratch (TrackGenerator, docs/design.md#windows); 0 (the default) or
  /// num_envs: all envs at once. ConfigError for another W.
  PipelineBuffers(const Space& space, const TrackGenConfig& config, int window_envs = 0);

  /// The same on the default instance of `Space`.
  explicit PipelineBuffers(const TrackGenConfig& config) : PipelineBuffers(Space(), config) {}

  int num_envs() const { return num_envs_; }
  int num_points() const { return num_points_; }
  int n_max() const { return n_max_; }
  int cache_slots() const { return cache_slots_; }
  /// Envs the stages' per-env scratch holds (num_envs() unless allocated
  /// for windows).
  int scratch_envs() const { return scratch_envs_; }
  /// Hashed grid cells per env of the pair tests: the smallest power of two >= N_max.
  int cell_table() const { return cell_table_; }
  /// Chains per env in relax_chains: 3 with Chebyshev, else 2.
  int relax_chain_count() const { return chebyshev_ ? 3 : 2; }
  /// Lanes of a host vector pass of the solve: a host pass runs whole blocks
  /// of this many beads (padding lanes past an env's last bead included).
  static constexpr int relax_lane_block = 16;
  /// Entries of each per-bead array of the solve's scratch (relax_chains'
  /// coordinates, relax_sep, the host list scratch) for `n_max` beads: a
  /// block before bead 0, the beads, and 48 after them (the host solve's
  /// ghost copies of the closed chain's beads, reached by its whole blocks
  /// and its near offsets of up to 32).
  static constexpr int relax_bead_stride_for(int n_max) { return n_max + 4 * relax_lane_block; }
  /// relax_bead_stride_for(N_max) of these buffers.
  int relax_bead_stride() const { return relax_bead_stride_for(n_max_); }
  /// Floats per coordinate array of a chain in relax_chains for `n_max`
  /// beads: relax_bead_stride_for(n_max), bead 0 at entry relax_lane_block.
  static constexpr int relax_chain_stride_for(int n_max) { return relax_bead_stride_for(n_max); }
  /// relax_chain_stride_for(N_max) of these buffers.
  int relax_chain_stride() const { return relax_chain_stride_for(n_max_); }
  /// Units of the solve's scratch (relax_chains, relax_sep, the cache): one
  /// per env on a device; one per thread of the execution space on a host
  /// space, whose solve runs an env on one thread from start to end, so its
  /// scratch is live only then (and stays in that core's caches from env to
  /// env).
  int relax_units() const { return relax_units_; }
  /// The first unit of the solve's scratch these buffers use: 0, or that of
  /// their part() (units [relax_unit_base(), relax_unit_base() + relax_units()).
  int relax_unit_base() const { return relax_unit_base_; }

  /// Throws ConfigError (naming `api`) unless `config` has the shape these buffers
  /// were allocated for (num_envs, num_points, N_max, relaxation modes).
  void check(const TrackGenConfig& config, const char* api) const;

  /// Envs [first, first + n) of these buffers, for the stages run on a
  /// window of a batch (with Track::window of the same envs and a config of
  /// n envs): gen_centerline, gen_valid and cs_center as unmanaged Views of
  /// those envs' entries; the other per-env buffers as Views of the first n
  /// envs of the scratch when it holds fewer envs than the batch, else of
  /// envs [first, first + n); the solve's per-thread scratch and the other
  /// members shared. Only where the solve's scratch is per thread (host
  /// spaces with the host loop shapes); ConfigError elsewhere and unless
  /// 0 <= first, 1 <= n <= scratch_envs() and first + n <= num_envs().
  PipelineBuffers window(int first, int n) const;

  /// Part p of `parts` of these buffers, for `parts` host threads that each
  /// run the stages on windows of their own at once (TrackGenerator,
  /// docs/design.md#windows): the stages' per-env scratch split into `parts`
  /// equal runs of envs (p's run as scratch_envs() / parts envs) and the
  /// solve's per-thread scratch into `parts` equal runs of units (p's run as
  /// relax_units() / parts units, from relax_unit_base()); gen_centerline,
  /// gen_valid and cs_center and the other members shared. The stages refuse
  /// a part whose units are fewer than the threads that run it. Only where
  /// the solve's scratch is per thread; ConfigError elsewhere and unless
  /// 0 <= p < parts and parts divides scratch_envs() and relax_units().
  PipelineBuffers part(int p, int parts) const;

  /// Bytes of device memory held by the buffers.
  std::size_t device_bytes() const;

  /// Bytes of device memory the constructor allocates for `config` (validated)
  /// and `window_envs`, computed without allocating: device_bytes() of such
  /// buffers.
  static std::size_t bytes_for(const TrackGenConfig& config, int window_envs = 0);

  // --- generator output (the input of the pipeline)
  Vec2View gen_centerline;  ///< [E*N] closed loops, N = num_points
  IntView gen_valid;        ///< [E] generator validity

  // --- constant-spacing resample (docs/algorithms.md#constant-spacing)
  Vec2View cs_center;  ///< [E*N_max] constant-spacing chain (pre-relax), NaN padded
  FloatView arc_s;     ///< [W*(max(N_max, N)+1)] cumulative arc-length tables (shared scan scratch)

  // --- relaxation (docs/algorithms.md#relaxation)
  IntView band;          ///< [W] separation exclusion band
  FloatView l0;          ///< [W] rest length perimeter / count
  Vec2View relaxed;      ///< [W*N_max] relaxation output
  /// [U * C * 2 * S] the solve's chains in structure-of-arrays form, unit
  /// major (U = relax_units()): chain c of unit u holds its x at
  /// [((u*C + c)*2)*S, + S) and its y right after, bead i at entry i + 16;
  /// C = relax_chain_count() (read, write, and the Chebyshev previous
  /// chain), S = relax_chain_stride()
  FloatView relax_chains;
  /// [U * 3 * S] per-bead separation sums (x, y) and counts of a sweep, unit
  /// major, bead i at entry i + 16, S = relax_bead_stride()
  FloatView relax_sep;
  FloatView cheby_omega;               ///< device copy of chebyshev_schedule(config)
  std::vector<float> cheby_omega_host; ///< chebyshev_schedule(config)
  CacheView sep_cache_idx;             ///< [U*N_max, slots] candidate bead indices; empty without cache
  IntView sep_cache_count;             ///< [U*N_max] candidates per bead; empty without cache
  IntView sep_overflow_flag;           ///< [U*N_max] 1 if the bead's list overflowed in this solve
  /// [U*16*S] on host spaces with the cache: how each bead's list splits into
  /// near bits, far entries and tiles of pairs, the host solve's scratch
  /// (docs/algorithms.md#how-the-solve-runs); empty otherwise
  IntView sep_cache_split;

  // --- inflation and validity (docs/algorithms.md#inflation, #validity)
  Vec2View ctr2;     ///< [W*N_max] re-uniformized centerline (2D), NaN padded
  FloatView seg;     ///< [W*N_max] |c_{i+1} - c_i| per real point
  FloatView turn;    ///< [W*N_max] turn at point i, estimated (geom::turn_estimate; NaN where unsure)
  FloatView kappa;   ///< [W*N_max] Menger curvature at point i
  IntView cell_start;  ///< [W*(T+1)] pair tests: first item of each hashed grid cell, T = cell_table()
  IntView cell_items;  ///< [W*N_max] pair tests: point indices sorted by grid cell
  IntView env_band;  ///< [W] thickness band used by validity
  IntView env_flip;  ///< [W] 1 if the outer border is c - hw n (else c + hw n)
  FloatView z_knots; ///< [W*K] elevation knots, K = z_control_points; empty unless z_profile is uniform or random_walk

  /// Host copy of Track::truncated for the facade's truncation warning.
  HostIntView truncated_host;

 private:
  int num_envs_ = 0;
  int scratch_envs_ = 0;
  int num_points_ = 0;
  int n_max_ = 0;
  int cache_slots_ = 0;
  bool chebyshev_ = false;
  int cell_table_ = 0;
  int relax_units_ = 0;
  int relax_unit_base_ = 0;
  int z_knots_ = 0;          // knots per env (0 unless the z profile uses knots)
  int relax_iters_ = 0;      // the Chebyshev schedule's inputs
  int cheby_start_ = 0;
  float cheby_rho_ = 0.0f;

  /// These buffers with their stages' per-env scratch narrowed to its envs
  /// [first, first + n) (window() and part()).
  PipelineBuffers with_scratch(std::size_t first, int n) const;

  /// The allocation plan's sizes (buffers.cpp): the batch's envs E, the
  /// scratch's envs W, the solve's units U and the per-env sizes every
  /// buffer's extent derives from.
  struct Plan {
    std::size_t envs = 0, scratch = 0, units = 0;
    int num_points = 0, n_max = 0, cache_slots = 0, cell_table = 0, z_knots = 0, chains = 0;
    std::size_t cheby = 0;  ///< entries of the Chebyshev schedule
  };
  /// The plan of `config` with `window_envs` (as the constructor takes them).
  static Plan plan_of(const TrackGenConfig& config, int window_envs);
  /// The plan of these buffers (as allocated; E and W of a window() or part()).
  Plan plan() const;
  /// The one list of the buffers (buffers.cpp): allocation, byte counts and
  /// the narrowing of window() and with_scratch() all walk it.
  template <class B, class F>
  static void for_each_buffer(B& b, const Plan& p, F&& f);
};

/// Constant-spacing resample (docs/algorithms.md#constant-spacing): gen_centerline
/// -> cs_center, track.count
/// and track.truncated (1 where the track needed more than N_max points).
/// Kernel "TrackGen::pipeline::resample::constant_spacing".
template <class Space>
void resample_constant_spacing(const LaunchContext<Space>& ctx, const TrackGenConfig& config,
                               PipelineBuffers<Space>& buffers, Track<typename Space::memory_space>& track);

/// Uniform re-parameterization (docs/algorithms.md#uniform-resample):
/// out[e*n_max + k] = the point at arc
/// length k * total / count[e] of the closed chain in[e*n_max .. + count[e]),
/// NaN for k >= count[e] (a chain of one point stays that point). `arc_s` holds
/// at least E*(n_max+1) floats of scratch. One kernel, labelled `kernel_label`.
template <class Space>
void resample_uniform(const LaunchContext<Space>& ctx, const DView<Vec2f, Space>& in,
                      const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& out,
                      const DView<float, Space>& arc_s, int n_max,
                      const char* kernel_label = "TrackGen::pipeline::resample::uniform");

/// Relaxation setup (docs/algorithms.md#relaxation-setup): band and L0 per env
/// from cs_center and track.count.
/// Kernel "TrackGen::pipeline::relax::band_l0".
template <class Space>
void relax_setup(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                 const Track<typename Space::memory_space>& track);

/// Relaxation solve (docs/algorithms.md#relaxation): cs_center -> relaxed, and
/// track.sep_overflow (beads of
/// each env whose broadphase list overflowed at any refresh of this solve; 0
/// without the cache). Cached broadphase when relax_sep_cache_slots > 0 and
/// relax_sep_every > 1, else dense separation on sweeps k % relax_sep_every == 0;
/// Chebyshev or plain Jacobi; then the Taubin tail and the spacing polish.
/// Padding beads copy through. Needs relax_setup first. Kernel
/// "TrackGen::pipeline::relax::solve" (one launch for all sweeps).
template <class Space>
void relax_solve(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                 Track<typename Space::memory_space>& track);

/// relax_setup + relax_solve when relax_enable; otherwise only zeroes
/// track.sep_overflow (the inflation then reads cs_center).
template <class Space>
void relax(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
           Track<typename Space::memory_space>& track);

/// The chain the inflation reads: `relaxed` if relax_enable, else `cs_center`.
template <class Space>
const DView<Vec2f, Space>& relax_output(const TrackGenConfig& config, const PipelineBuffers<Space>& buffers) {
  return config.relax_enable ? buffers.relaxed : buffers.cs_center;
}

/// Inflation and validity (docs/algorithms.md#inflation, #validity) with the
/// elevation profile (docs/algorithms.md#elevation):
/// re-uniformize the relax output, frames, arc length (double), winding,
/// offsets (outer = larger |area|, fixed-order per-env sums), z per point from
/// config.z_profile (knots and noise drawn from `seeds`, the batch's [E]
/// effective seeds: the generator's input), validity (with the grade check when
/// z_valid_grade > 0), and the lift to Vec3: flat puts every point at z_base
/// with plan-view tangents and arc length; other profiles give 3D tangents and
/// arc length and keep the normals planar. Writes every Track field except
/// count, truncated and sep_overflow. The thickness test uses relax_band when it
/// is set (the band the relaxation used; the original system ignored it), else
/// SEPBAND(perimeter / count, 2 hw) of the final chain. Ends with
/// check_near_pairs. ConfigError naming the API when the buffers, Track,
/// seeds or `padded` do not fit the config.
/// Kernels "TrackGen::pipeline::inflate::reuniformize",
/// "TrackGen::pipeline::inflate::frames_offset_validity" and
/// "TrackGen::pipeline::inflate::near_pairs".
///
/// Padding: the point rows [count, N_max) of every env are written as padding
/// (NaN in plan view), unless `padded` ([E], optional) is given: for a caller
/// that runs into the same Track again and again with the same config and
/// writes none of its point rows in between, padded(e) is the row from which
/// env e's rows already hold that padding (start it at N_max: none known).
/// Then only the rows [count, padded(e)) are written, and padded(e) becomes
/// the new count (docs/design.md#padding). The rows are the same either way.
template <class Space>
void inflate(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
             const DView<std::int32_t, Space>& seeds, Track<typename Space::memory_space>& track,
             const DView<std::int32_t, Space>& padded = {});

/// The validity tests over pairs of nearby points, the last step of inflate:
/// clears track.valid[e] where one fails (envs already invalid are skipped).
///  - Always: the separation half of the thickness test, |c_i - c_j| >= 2 (1 -
///    relax_tol) hw for every pair farther apart than the thickness band.
///  - With validity_border_check (the default), the loop check, which makes a
///    valid track drivable:
///    - the centre line, the outer and the inner border are simple: no two
///      non-adjacent segments of one loop come within 1e-3 hw of each other
///      (which includes every crossing and touch);
///    - no border folds back: border segment i advances along centre segment i
///      by more than 1e-3 of its length;
///    - every border point keeps (1 - relax_tol) hw from the centre line, where
///      the centre line between two points may be the chord or the circular arc
///      through the neighbouring points (the chord's distance plus its
///      sagitta on the circle of the larger Menger curvature of its ends).
/// Cost O(count) per env: a hashed uniform grid of the centre points in the
/// preallocated cell_start / cell_items (cell side about 2 (hw + the longest
/// centre segment)); every pair that can fail a test has its centre points in
/// the same or neighbouring cells. Reads the centre line and borders of
/// `track` and the buffers' ctr2, seg, kappa and env_band, as inflate leaves them.
/// ConfigError naming the API when the buffers or Track do not fit the config.
/// Kernel "TrackGen::pipeline::inflate::near_pairs".
template <class Space>
void check_near_pairs(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                      Track<typename Space::memory_space>& track);

/// resample_constant_spacing -> relax -> inflate (everything after the
/// generator); `padded` as for inflate.
template <class Space>
void run_pipeline(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                  const DView<std::int32_t, Space>& seeds, Track<typename Space::memory_space>& track,
                  const DView<std::int32_t, Space>& padded = {});

}  // namespace trackgen

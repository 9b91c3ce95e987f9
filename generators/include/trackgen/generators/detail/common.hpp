// Building blocks shared by the centerline generators
// (docs/algorithms.md#generator-conventions):
//
// - device functions every per-env kernel composes: the grid corner sampler and
//   the angle keys of the point family (bezier, hull), the cubic Bezier
//   weights, the closed Catmull-Rom basis (polar, hull, voronoi);
// - kernel launchers over flat [E*stride] buffers, each issuing its work only
//   through a LaunchContext: the team angle sort of the point family, the dense
//   sampling of closed Catmull-Rom / linear loops (hull, voronoi), the NaN-aware
//   arc resample ARC and its "selected" variant, the per-env
//   self-intersection count XCOUNT and its selected variant, and the
//   bbox normalization NORM(target).
//
// Scratch is owned by the calling generator and allocated at its construction
// (ArcScratch); the launchers allocate nothing. Launchers are explicitly
// instantiated for every enabled execution space in common.cpp. What the gate
// pipeline shares with the generators (the angle sort, NORM, the normalized
// extent) is in loops.hpp, the closed Catmull-Rom basis in core/geometry.hpp.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/core/spaces.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/generators/detail/loops.hpp>
#include <trackgen/generators/generator.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace trackgen::detail {

// ---------------------------------------------------------------------------
// Host helpers

/// The point-family sampler's parameters, shared by bezier and hull
/// (docs/algorithms.md#generator-conventions), resolved on the host from a config.
struct PointFamilyParams {
  int num_envs = 0;
  int num_points = 0;  ///< N, output points per env
  int num_slots = 0;   ///< P = max_num_points, the corner stride
  int npseg = 0;       ///< dense samples per segment
  int min_num_points = 0;
  int num_cells = 0;       ///< int(1 / (2 * min_point_distance)), in double from the decimal value
  float cell_size = 0.0f;  ///< 2 * min_point_distance

  /// Resolves a config that passed its field table's checks
  /// (TrackGenConfig::validate, or GateGenConfig::validate for the
  /// track_config() of a gate source): the bounds live there only.
  static PointFamilyParams from_config(const TrackGenConfig& config);
};

/// "TrackGen::generators::<gen>::<name>".
inline std::string gen_label(const std::string& gen, const char* name) {
  return "TrackGen::generators::" + gen + "::" + name;
}

/// A device View of n elements labelled TrackGen::generators::<gen>::<name>,
/// allocated (and zero-filled) on the instance `space`.
template <class T, class Space>
DView<T, Space> gen_view(const Space& space, const std::string& gen, const char* name, std::size_t n) {
  return DView<T, Space>(Kokkos::view_alloc(space, gen_label(gen, name)), n);
}

/// The argument check of Generator::generate (before any work): seeds [E],
/// out_centerline [E*N], out_valid [E]; ConfigError naming `api` and the
/// expected and actual extents otherwise.
template <class IntView, class Vec2View>
void check_generate_args(const char* api, std::size_t num_envs, std::size_t num_points, const IntView& seeds,
                         const Vec2View& out_centerline, const IntView& out_valid) {
  const std::size_t E = num_envs, N = num_points;
  if (seeds.extent(0) != E || out_centerline.extent(0) != E * N || out_valid.extent(0) != E) {
    throw ConfigError(std::string(api) + ": expected seeds [" + std::to_string(E) + "], out_centerline [" +
                      std::to_string(E * N) + "], out_valid [" + std::to_string(E) + "]; got [" +
                      std::to_string(seeds.extent(0)) + "], [" + std::to_string(out_centerline.extent(0)) + "], [" +
                      std::to_string(out_valid.extent(0)) + "]");
  }
}

// ---------------------------------------------------------------------------
// Scratch plans: a buffer set's one list of buffers
//
// A plan is a callable `plan(f)` that calls, for every buffer of a set (a
// generator's scratch, ArcScratch, RepulsiveGradScratch), once:
//   f(name, get, n)              a View of n elements, reached in an owner
//                                object as get(owner) (TRACKGEN_MEMBER)
//   f(name, get, envs, stride)   a part with a plan of its own (ArcScratch,
//                                RepulsiveGradScratch), built as
//                                Part(space, gen, envs, stride)
// The owner's constructor allocates by it (allocate_plan), its device_bytes()
// counts by it (plan_device_bytes) and the memory estimate without allocating
// (plan_bytes), so the three cannot disagree.

/// The accessor of member `m` of a plan's owner: [](auto& o) -> auto& { return o.m; }.
#define TRACKGEN_MEMBER(m) [](auto& owner_) -> auto& { return owner_.m; }

/// Allocates every buffer of `plan` in `owner` on `space`, labelled
/// TrackGen::generators::<gen>::<name> and zero-filled.
template <class Owner, class Plan, class Space>
void allocate_plan(Owner& owner, Plan&& plan, const Space& space, const std::string& gen) {
  plan([&](const char* name, auto get, std::size_t n, std::size_t stride = 0) {
    auto& b = get(owner);
    using B = std::decay_t<decltype(b)>;
    if constexpr (Kokkos::is_view<B>::value) {
      b = gen_view<typename B::value_type>(space, gen, name, n);
    } else {
      b = B(space, gen, static_cast<int>(n), static_cast<int>(stride));
    }
  });
}

/// Bytes held by the buffers of `plan` in `owner`.
template <class Owner, class Plan>
std::size_t plan_device_bytes(const Owner& owner, Plan&& plan) {
  std::size_t bytes = 0;
  plan([&](const char*, auto get, std::size_t, std::size_t = 0) {
    const auto& b = get(owner);
    if constexpr (Kokkos::is_view<std::decay_t<decltype(b)>>::value) {
      bytes += view_bytes(b);
    } else {
      bytes += b.bytes();
    }
  });
  return bytes;
}

/// Bytes the buffers of `plan` of an Owner hold once allocated, without
/// allocating.
template <class Owner, class Plan>
std::size_t plan_bytes(Plan&& plan) {
  std::size_t bytes = 0;
  plan([&](const char*, auto get, std::size_t n, std::size_t stride = 0) {
    using B = std::decay_t<decltype(get(std::declval<Owner&>()))>;
    if constexpr (Kokkos::is_view<B>::value) {
      bytes += sizeof(typename B::value_type) * n;
    } else {
      bytes += B::bytes_for(n, stride);
    }
  });
  return bytes;
}

/// Common base of the built-in generators: the parameters resolved from the
/// config, the name and kernel label prefix, and the opening of generate()
/// (argument check and profiling region). A built-in allocates and counts its
/// scratch by its scratch plan (allocate_plan above).
template <class Space, class Params>
class BuiltinGenerator : public Generator<Space> {
 public:
  using IntView = DView<std::int32_t, Space>;
  using FloatView = DView<float, Space>;
  using Vec2View = DView<Vec2f, Space>;

  /// The parameters resolved from the config at construction.
  const Params& params() const { return p_; }

 protected:
  BuiltinGenerator(const char* name, Params params)
      : p_(std::move(params)), name_(name), prefix_(gen_label(name, "")) {}

  /// The opening of generate(): checks its arguments (ConfigError naming
  /// "trackgen::<generator>::generate", before any work) and returns the
  /// generator's profiling region "TrackGen::generators::<generator>".
  typename LaunchContext<Space>::Region begin_generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                                       const Vec2View& out_centerline,
                                                       const IntView& out_valid) const {
    check_generate_args(("trackgen::" + name_ + "::generate").c_str(), p_.num_envs, p_.num_points, seeds,
                        out_centerline, out_valid);
    return ctx.region("TrackGen::generators::" + name_);
  }

  Params p_;
  std::string name_;
  std::string prefix_;  ///< kernel label prefix "TrackGen::generators::<generator>::"
};

/// The registry entry of a built-in generator class G (constructible from
/// (space, config)) under `name`.
template <class G, class Space>
GeneratorSpec<Space> builtin_spec(const char* name, CaptureClass capture = CaptureClass::STATIC) {
  GeneratorSpec<Space> spec;
  spec.name = name;
  spec.make = [](const Space& space, const TrackGenConfig& config) -> std::unique_ptr<Generator<Space>> {
    return std::make_unique<G>(space, config);
  };
  spec.scratch_bytes = &G::scratch_bytes;
  spec.capture = capture;
  return spec;
}

// ---------------------------------------------------------------------------
// Device building blocks

/// One grid-cell draw of the point-family sampler: min(floor(u * nc2), nc2 - 1).
KOKKOS_INLINE_FUNCTION int draw_cell(std::uint32_t& st, int nc2) {
  const float u = randf(st);
  return kmath::min(static_cast<int>(kmath::floor(u * static_cast<float>(nc2))), nc2 - 1);
}

/// The point-family corner sampler for one env: draws all
/// `num_slots` corners from the stream `st` into out[0..num_slots). Each corner
/// draws a cell, redraws at most 8 times while the cell equals the cell of an
/// earlier corner (the 8th redraw is accepted unchecked), records it in
/// `used[c]`, then draws the jitter nx, ny (absolute units, +-0.5):
/// corner = ((cell mod nc) * cell_size + nx, (cell div nc) * cell_size + ny) * scale.
KOKKOS_INLINE_FUNCTION void sample_grid_corners(std::uint32_t& st, int num_slots, int num_cells, float cell_size,
                                                float scale, int* used, Vec2f* out) {
  const int nc2 = num_cells * num_cells;
  for (int c = 0; c < num_slots; ++c) {
    int cell = draw_cell(st, nc2);
    for (int retry = 0; retry < 8; ++retry) {
      bool dup = false;
      for (int k = 0; k < c; ++k) dup = dup || (used[k] == cell);
      if (!dup) break;
      cell = draw_cell(st, nc2);
    }
    used[c] = cell;
    const float nx = randf(st) - 0.5f;
    const float ny = randf(st) - 0.5f;
    const Vec2f p{static_cast<float>(cell % num_cells) * cell_size + nx,
                  static_cast<float>(cell / num_cells) * cell_size + ny};
    out[c] = p * scale;
  }
}

/// The point-family corner count:
/// min(min_num + floor(u * (max_num - min_num + 1)), max_num).
KOKKOS_INLINE_FUNCTION int draw_corner_count(std::uint32_t& st, int min_num, int max_num) {
  const float u = randf(st);
  return kmath::min(min_num + static_cast<int>(kmath::floor(u * static_cast<float>(max_num - min_num + 1))), max_num);
}

/// Angle keys of the prune-then-sort (the angle sort) of one env's first
/// m corners p[0..m): centroid c of p[0..m) (double sums, in index order, cast
/// to float), key_i = atan2(dx, dy) of d = p_i - c (x first: ascending keys
/// run clockwise), written as keys[i] = compat::sort_key(key_i, i). Sorting the
/// composite keys ascending (compat::team_sort) reproduces the original system's
/// stable insertion sort (strict `>` shift) exactly: equal angles (coincident
/// corners, corners on one ray from the centroid) keep their draw order.
KOKKOS_INLINE_FUNCTION void angle_sort_keys(const Vec2f* p, int m, std::uint64_t* keys) {
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < m; ++i) {
    sx += static_cast<double>(p[i].x);
    sy += static_cast<double>(p[i].y);
  }
  const Vec2f c{static_cast<float>(sx / m), static_cast<float>(sy / m)};
  for (int i = 0; i < m; ++i) {
    const Vec2f d = p[i] - c;
    keys[i] = compat::sort_key(kmath::atan2(d.x, d.y), i);
  }
}

/// Cubic Bernstein weights at u: (1-u)^3, 3u(1-u)^2, 3u^2(1-u), u^3.
struct CubicWeights {
  float b0, b1, b2, b3;
};
KOKKOS_INLINE_FUNCTION CubicWeights cubic_weights(float u) {
  const float v = 1.0f - u;
  return {v * v * v, 3.0f * u * v * v, 3.0f * u * u * v, u * u * u};
}

/// The closed Catmull-Rom basis (trackgen/core/geometry.hpp).
using geom::catmull_rom;
using geom::CatmullRom;

// ---------------------------------------------------------------------------
// Kernel launchers

/// The two dense samplings of closed control loops.
enum class ClosedCurve {
  catmull_rom,  ///< uniform Catmull-Rom through p_i .. p_{i+1} with p_{i-1}, p_{i+2} (indices mod n)
  linear,       ///< (1 - u) p_i + u p_{i+1} (index i + 1 mod n)
};

/// Closed control loops over a flat buffer: env e's loop is
/// points[e*stride, +n_e) with n_e = count[e] clamped to [0, stride] (count of
/// extent 0: stride points each).
template <class Space>
struct ControlLoops {
  DView<Vec2f, Space> points;
  int stride = 0;
  DView<std::int32_t, Space> count;
};

/// How closed_curve_dense samples a loop: `segments` segments of `npseg`
/// samples each per env (dense row R = segments * npseg), segment i at
/// u = s / (npseg - 1) when `include_end` (both end points: consecutive
/// segments duplicate the control point) else u = s / npseg.
struct DenseSampling {
  ClosedCurve curve = ClosedCurve::catmull_rom;
  int segments = 0;
  int npseg = 0;
  bool include_end = false;
};

/// Dense samples of closed loops, thread per sample: env e's dense row
/// dense[e*R, (e+1)*R) holds `sampling` of its control loop; segments
/// i >= n_e, and every segment when n_e < 2, are NaN. Only envs with
/// active[e] > 0 are written (active of extent 0: every env); the other rows
/// are left untouched. Label: `label`.
template <class Space>
void closed_curve_dense(const LaunchContext<Space>& ctx, const std::string& label, const DenseSampling& sampling,
                        const ControlLoops<Space>& loops, const DView<std::int32_t, Space>& active,
                        const DView<Vec2f, Space>& dense);

/// Scratch of the arc resampler for E envs of input stride M: the compacted
/// finite points [E*M], the segment lengths [E*M], the cumulative lengths
/// [E*(M+1)] and the per-env count of finite points [E].
template <class Space>
struct ArcScratch {
  DView<Vec2f, Space> real;
  DView<float, Space> seg;
  DView<float, Space> cum;
  DView<std::int32_t, Space> num_real;
  int num_envs = 0;
  int stride = 0;

  ArcScratch() = default;
  ArcScratch(const Space& space, const std::string& gen, int num_envs, int stride);
  std::size_t bytes() const;
  /// bytes() of an ArcScratch of `num_envs` envs of stride `stride`, without allocating.
  static std::size_t bytes_for(std::size_t num_envs, std::size_t stride);
  /// Its plan (see allocate_plan): four buffers of `num_envs` envs.
  template <class F>
  static void plan(std::size_t num_envs, std::size_t stride, F&& f) {
    f("arc_real", TRACKGEN_MEMBER(real), num_envs * stride);
    f("arc_seg", TRACKGEN_MEMBER(seg), num_envs * stride);
    f("arc_cum", TRACKGEN_MEMBER(cum), num_envs * (stride + 1));
    f("arc_num_real", TRACKGEN_MEMBER(num_real), num_envs);
  }
};


/// ARC's segment lengths sg[0..R) of the closed loop of the R points r and its
/// cumulative table s[0..R] (double accumulation in order, stored as float).
KOKKOS_INLINE_FUNCTION void arc_table(const Vec2f* r, int R, float* sg, float* s) {
  for (int j = 0; j + 1 < R; ++j) sg[j] = length(r[j + 1] - r[j]);
  sg[R - 1] = length(r[0] - r[R - 1]);
  double acc = 0.0;
  s[0] = 0.0f;
  for (int j = 0; j < R; ++j) {
    acc += static_cast<double>(sg[j]);
    s[j + 1] = static_cast<float>(acc);
  }
}

/// ARC's point at arc length `target` on segment j of the closed loop of the R
/// points r (segment lengths sg, table s): the lerp with
/// frac = clamp((target - s_j) / max(sg_j, 1e-12), 0, 1).
KOKKOS_INLINE_FUNCTION Vec2f arc_point_at(const Vec2f* r, const float* sg, const float* s, int R, float target, int j) {
  const float frac = kmath::clamp((target - s[j]) / kmath::max(sg[j], 1e-12f), 0.0f, 1.0f);
  const Vec2f a = r[j], b = r[j + 1 < R ? j + 1 : 0];
  return a + frac * (b - a);
}

/// ARC of one env on a host space, as arc_resample computes it: the M points
/// `in` (their finite ones, compacted into `compact` [M] unless all are
/// finite, the usual case, which is read in place) to `num` points in `out`,
/// each segment walked to from the previous one (geom::ArcWalk); NaN rows with
/// fewer than 2 finite points. `sg` [M] and `s` [M + 1] hold the table.
/// Returns the number of finite points.
inline int arc_env_host(const Vec2f* in, int M, Vec2f* compact, float* sg, float* s, Vec2f* out, int num) {
  bool finite = true;
  for (int j = 0; j < M; ++j) finite = finite & is_finite(in[j]);
  const Vec2f* r = in;
  int R = M;
  if (!finite) {
    R = 0;
    for (int j = 0; j < M; ++j) {
      const Vec2f p = in[j];
      if (is_finite(p)) compact[R++] = p;
    }
    r = compact;
  }
  if (R < 2) {
    for (int k = 0; k < num; ++k) out[k] = nan2();
    return R;
  }
  arc_table(r, R, sg, s);
  geom::ArcWalk walk(s, R);
  for (int k = 0; k < num; ++k) {
    const float target = static_cast<float>(k) * s[R] / static_cast<float>(num);
    out[k] = arc_point_at(r, sg, s, R, target, walk.segment(target));
  }
  return R;
}

/// NORM(target) of the n points p of one env on a host space, in place, as
/// normalize_bbox computes it: the box in point order, then the transform.
inline void normalize_env_host(Vec2f* p, int n, float target) {
  Kokkos::MinMaxScalar<float> bx{}, by{};
  Kokkos::MinMax<float>(bx).init(bx);
  Kokkos::MinMax<float>(by).init(by);
  for (int i = 0; i < n; ++i) {
    const Vec2f q = p[i];
    if (!is_finite(q)) continue;
    bx.min_val = kmath::min(bx.min_val, q.x);
    bx.max_val = kmath::max(bx.max_val, q.x);
    by.min_val = kmath::min(by.min_val, q.y);
    by.max_val = kmath::max(by.max_val, q.y);
  }
  const Vec2f c{(bx.min_val + bx.max_val) / 2.0f, (by.min_val + by.max_val) / 2.0f};
  const float extent = kmath::max(bx.max_val - bx.min_val, by.max_val - by.min_val);
  const float s = target / kmath::max(extent, 1e-8f);
  for (int i = 0; i < n; ++i) p[i] = (p[i] - c) * s;
}

/// ARC (docs/algorithms.md#arc-resample): per env e, compacts the finite points of
/// dense[e*M, (e+1)*M) (M = scratch.stride), builds the closed-loop cumulative
/// length (double accumulation, stored as float) and writes `num` points at arc
/// lengths k * total / num to out[e*num, (e+1)*num); an env with fewer than 2
/// finite points gets NaN rows. Launches: scan (thread per env), lookup (thread
/// per output point). Labels: <prefix>arc_scan, <prefix>arc_lookup.
template <class Space>
void arc_resample(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& dense,
                  const DView<Vec2f, Space>& out, int num, const ArcScratch<Space>& scratch);

/// The "selected" ARC: only envs with active[e] > 0 are scanned and written;
/// the other rows of `out` are left untouched. Labels: <prefix>arc_scan_selected,
/// <prefix>arc_lookup_selected.
template <class Space>
void arc_resample_selected(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& dense,
                           const DView<Vec2f, Space>& out, int num, const DView<std::int32_t, Space>& active,
                           const ArcScratch<Space>& scratch);

/// Team size of the kernels that count XCOUNT with xcount_in_team: one thread
/// on host spaces, Kokkos' choice (0) on devices.
template <class Space>
constexpr int xcount_team_size() {
  return is_host_space<Space>() ? 1 : 0;
}

/// XCOUNT of the closed loop p[0..n) inside a team kernel whose every thread
/// calls it with the same loop; every thread gets the count. Host spaces (a
/// team of one thread, xcount_team_size) run the box broadphase
/// (geom::xcount_broadphase); devices sum the per-segment counts
/// (geom::xcount_segment) over the team's threads with an integer reduction.
/// Both give XCOUNT exactly (docs/algorithms.md#xcount).
template <class Space, class Member>
KOKKOS_INLINE_FUNCTION int xcount_in_team(const Member& team, const Vec2f* p, int n) {
  if constexpr (is_host_space<Space>()) {
    return geom::xcount_broadphase(p, n);
  } else {
    int total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n), [&](const int i, int& acc) { acc += geom::xcount_segment(p, n, i); },
        total);
    return total;
  }
}

/// XCOUNT (docs/algorithms.md#xcount) of the closed loops pts[e*stride, e*stride + n),
/// e < out_count.extent(0) (envs, or env x candidate loops), into out_count[e]
/// (NaN coordinates read as 0). One team per loop (xcount_in_team).
/// Label: <prefix>xcount.
template <class Space>
void xcount(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts, int stride,
            int n, const DView<std::int32_t, Space>& out_count);

/// The "selected" XCOUNT: out_count[e] = XCOUNT of the loop for envs with
/// active[e] > 0, 0 for the others (written too, so the result never depends
/// on earlier contents). Label: <prefix>xcount_selected.
template <class Space>
void xcount_selected(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts,
                     int stride, int n, const DView<std::int32_t, Space>& active,
                     const DView<std::int32_t, Space>& out_count);

/// XCOUNT of the first count[e] points of each env (count-aware variant, e.g.
/// for NaN-padded [E*N_max] chains). Label: <prefix>xcount.
template <class Space>
void xcount(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts, int stride,
            const DView<std::int32_t, Space>& count, const DView<std::int32_t, Space>& out_count);

/// out_valid[e] = 1 for every env (the generators' stage flag). Label:
/// <prefix>valid.
template <class Space>
void fill_valid(const LaunchContext<Space>& ctx, const std::string& prefix,
                const DView<std::int32_t, Space>& out_valid);

}  // namespace trackgen::detail

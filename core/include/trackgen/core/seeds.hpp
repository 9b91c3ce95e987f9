// Seeds: integer seed expansion and SeedState (per-env base seeds plus device-side
// epochs, docs/algorithms.md#seeds-and-epochs).
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/core/views.hpp>

#include <cstdint>
#include <climits>
#include <string>

namespace trackgen {

/// How an integer base seed k expands to E per-env seeds.
enum class SeedExpansion {
  /// seed[e] = k + e with int32 wrap-around (the original system's expansion).
  /// Batches seeded k and k+1 share E-1 tracks, shifted by one env.
  arange,
  /// seed[e] = pcg(pcg(u32(k)) + u32(e)) & 0x7FFFFFFF: batches seeded k and k+1
  /// are unrelated (an overlap needs a 32-bit hash collision).
  hashed,
};

/// The JSON names of the expansions (CourseConfig.seed_expansion).
template <>
struct SettingNames<SeedExpansion> {
  static constexpr std::array<SettingName<SeedExpansion>, 2> values{
      {{SeedExpansion::arange, "arange"}, {SeedExpansion::hashed, "hashed"}}};
};

/// Per-env seed of env `e` for base seed `k` under `mode` (host and device).
KOKKOS_INLINE_FUNCTION constexpr std::int32_t expand_seed(std::int32_t k, std::int32_t e, SeedExpansion mode) {
  if (mode == SeedExpansion::arange) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(k) + static_cast<std::uint32_t>(e));
  }
  return static_cast<std::int32_t>(pcg_hash(pcg_hash(static_cast<std::uint32_t>(k)) + static_cast<std::uint32_t>(e)) &
                                   0x7FFFFFFFu);
}

/// Throws ConfigError naming `api` when the arange seeds k + e of `num_envs`
/// envs would pass INT32_MAX (and wrap): a batch's env seeds never repeat.
inline void check_arange_seeds(const char* api, std::int32_t k, int num_envs) {
  if (static_cast<std::int64_t>(k) + (num_envs - 1) > INT32_MAX) {
    throw ConfigError(std::string(api) + ": base seed " + std::to_string(k) + " with num_envs = " +
                      std::to_string(num_envs) + " would wrap: env seeds k + e must stay <= 2147483647, so k <= " +
                      std::to_string(static_cast<std::int64_t>(INT32_MAX) - (num_envs - 1)));
  }
}

namespace detail {
/// The subset of LaunchContext that SeedState needs, on a plain instance: what
/// the methods without a context use (SeedState lives below the exec layer).
template <class Space>
struct DirectLauncher {
  Space instance;
  const Space& space() const { return instance; }
  template <class F>
  void for_each(const std::string& name, std::size_t n, const F& f) const {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(instance, 0, n), f);
  }
  template <class D, class S>
  void copy(const D& dst, const S& src) const {
    Kokkos::deep_copy(instance, dst, src);
  }
  template <class V, class T>
  void fill(const V& v, const T& value) const {
    Kokkos::deep_copy(instance, v, value);
  }
};

/// A launch context: anything with space(), for_each(), copy() and fill()
/// (trackgen::LaunchContext, DirectLauncher).
template <class C>
concept Launcher = requires(const C& c) { c.space(); };

/// s[e] = expand_seed(k, e, mode) on `space` (a free function: nvcc admits no
/// KOKKOS_LAMBDA directly inside a constructor or a private member function).
template <class Space>
void expand_seeds(const Space& space, const DView<std::int32_t, Space>& s, std::int32_t k, SeedExpansion mode) {
  Kokkos::parallel_for(
      "TrackGen::seeds::expand", Kokkos::RangePolicy<Space>(space, 0, s.extent(0)),
      KOKKOS_LAMBDA(const int e) { s(e) = expand_seed(k, e, mode); });
}
}  // namespace detail

/// Per-env base seeds plus a per-env epoch that only changes on the device, the
/// pair that keys every generation. Seeds are either OWNED (built from an integer
/// expansion, or copied) or BOUND to a caller's [E] int32 View, which SeedState
/// never writes. Construction allocates; every other method is one or two kernel
/// launches on the state's execution-space instance: allocation-free and
/// sync-free.
template <class Space = Kokkos::DefaultExecutionSpace>
class SeedState {
 public:
  using IntView = DView<std::int32_t, Space>;

  /// Owned seeds `expand_seed(k, e, mode)` for e in [0, num_envs), allocated
  /// and written on the instance `space`. ConfigError, before any allocation,
  /// when num_envs < 1 or (arange) k + num_envs - 1 exceeds INT32_MAX, where
  /// the env seeds would wrap.
  SeedState(const Space& space, int num_envs, std::int32_t k = 0, SeedExpansion mode = SeedExpansion::arange)
      : space_(space), bound_(false) {
    if (num_envs < 1) {
      throw ConfigError("trackgen::SeedState: num_envs must be >= 1, got " + std::to_string(num_envs));
    }
    if (mode == SeedExpansion::arange) check_arange_seeds("trackgen::SeedState", k, num_envs);
    seeds_ = IntView(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, label("seeds", "seeds")), num_envs);
    epoch_ = IntView(Kokkos::view_alloc(space_, label("seeds", "epoch")), num_envs);
    detail::expand_seeds(space_, seeds_, k, mode);
    space_.fence();
  }

  /// The same on the default instance of `Space`.
  explicit SeedState(int num_envs, std::int32_t k = 0, SeedExpansion mode = SeedExpansion::arange)
      : SeedState(Space(), num_envs, k, mode) {}

  /// Binds `seeds` (an [E] int32 View) by reference, or takes an owned copy
  /// (made on the instance `space`) when `copy` is true.
  SeedState(const Space& space, IntView seeds, bool copy = false) : space_(space), bound_(!copy) {
    if (seeds.extent(0) < 1) throw ConfigError("trackgen::SeedState: seeds must hold at least one env, got 0");
    if (copy) {
      seeds_ = IntView(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, label("seeds", "seeds")),
                       seeds.extent(0));
      Kokkos::deep_copy(space_, seeds_, seeds);
    } else {
      seeds_ = seeds;
    }
    epoch_ = IntView(Kokkos::view_alloc(space_, label("seeds", "epoch")), seeds.extent(0));
    space_.fence();
  }

  /// The same on the default instance of `Space`.
  explicit SeedState(IntView seeds, bool copy = false) : SeedState(Space(), std::move(seeds), copy) {}

  /// [E] base seeds (the caller's View when bound).
  const IntView& seeds() const { return seeds_; }
  /// [E] epochs (owned; changed only on the device).
  const IntView& epoch() const { return epoch_; }
  /// Whether the seeds are a caller's View (never written by SeedState).
  bool bound() const { return bound_; }
  int num_envs() const { return static_cast<int>(seeds_.extent(0)); }
  const Space& space() const { return space_; }

  /// Binds another caller's [E] int32 View of base seeds (a bound state only;
  /// the epochs are kept). A graph that recorded work reading the old View keeps
  /// reading it. ConfigError for an owned state (use set()) or a View of another
  /// extent.
  void rebind(const IntView& seeds) {
    if (!bound_) {
      throw ConfigError("trackgen::SeedState::rebind: the seeds are owned (copied); write them with set()");
    }
    if (seeds.data() == nullptr || seeds.extent(0) != seeds_.extent(0)) {
      throw ConfigError("trackgen::SeedState::rebind: seeds must be an [" + std::to_string(num_envs()) +
                        "] int32 View, got extent " + std::to_string(seeds.extent(0)));
    }
    seeds_ = seeds;
  }

  /// Checks that `mask` is an [E] int32 View (a mask selects env e where mask[e] != 0).
  void check_mask(const IntView& mask, const std::string& name = "mask") const {
    if (mask.data() == nullptr || mask.extent(0) != seeds_.extent(0)) {
      throw ConfigError("trackgen::SeedState: " + name + " must be an [" + std::to_string(num_envs()) +
                        "] int32 View, got extent " + std::to_string(mask.extent(0)));
    }
  }

  /// epoch[e] += 1 for every env, or only where mask[e] != 0. The overloads
  /// taking a launch context `ctx` (a trackgen::LaunchContext) issue the work
  /// through it, so it can be recorded into a graph; the others use the state's
  /// own instance.
  void advance(const IntView& mask = IntView()) const { advance(launcher(), mask); }
  template <detail::Launcher Ctx>
  void advance(const Ctx& ctx, const IntView& mask = IntView()) const {
    if (mask.data() != nullptr) check_mask(mask);
    auto ep = epoch_;
    const bool masked = mask.data() != nullptr;
    ctx.for_each("TrackGen::seeds::advance", epoch_.extent(0), KOKKOS_LAMBDA(const int e) {
      if (!masked || mask(e) != 0) ep(e) += 1;
    });
  }

  /// epoch[e] = 0 for every env, or only where mask[e] != 0.
  void reset_epoch(const IntView& mask = IntView()) const { reset_epoch(launcher(), mask); }
  template <detail::Launcher Ctx>
  void reset_epoch(const Ctx& ctx, const IntView& mask = IntView()) const {
    if (mask.data() != nullptr) check_mask(mask);
    auto ep = epoch_;
    const bool masked = mask.data() != nullptr;
    ctx.for_each("TrackGen::seeds::reset_epoch", epoch_.extent(0), KOKKOS_LAMBDA(const int e) {
      if (!masked || mask(e) != 0) ep(e) = 0;
    });
  }

  /// Writes new base seeds into an owned state and zeroes those envs' epochs:
  /// all envs from an [E] View, or seeds[i] into env ids[i] (duplicate ids race;
  /// ids outside [0, E) are ignored).
  void set(const IntView& seeds, const IntView& ids = IntView()) const { set(launcher(), seeds, ids); }
  template <detail::Launcher Ctx>
  void set(const Ctx& ctx, const IntView& seeds, const IntView& ids = IntView()) const {
    if (bound_) {
      throw ConfigError(
          "trackgen::SeedState::set: the seeds are bound to a caller's View; write that View, or build the "
          "state with copy=true");
    }
    if (ids.data() == nullptr) {
      if (seeds.extent(0) != seeds_.extent(0)) {
        throw ConfigError("trackgen::SeedState::set: seeds must have extent " + std::to_string(num_envs()) +
                          ", got " + std::to_string(seeds.extent(0)));
      }
      ctx.copy(seeds_, seeds);
      ctx.fill(epoch_, std::int32_t(0));
      return;
    }
    if (ids.extent(0) != seeds.extent(0)) {
      throw ConfigError("trackgen::SeedState::set: ids (extent " + std::to_string(ids.extent(0)) +
                        ") and seeds (extent " + std::to_string(seeds.extent(0)) + ") must match");
    }
    auto dst = seeds_;
    auto ep = epoch_;
    const int n = num_envs();
    ctx.for_each("TrackGen::seeds::set", ids.extent(0), KOKKOS_LAMBDA(const int i) {
      const int e = ids(i);
      if (e >= 0 && e < n) {
        dst(e) = seeds(i);
        ep(e) = 0;
      }
    });
  }

  /// Writes the effective seed of every env (or only of masked envs, leaving the
  /// other entries of `out` untouched) into the [E] View `out`.
  void effective(const IntView& out, const IntView& mask = IntView()) const { effective(launcher(), out, mask); }
  template <detail::Launcher Ctx>
  void effective(const Ctx& ctx, const IntView& out, const IntView& mask = IntView()) const {
    if (out.extent(0) != seeds_.extent(0)) {
      throw ConfigError("trackgen::SeedState::effective: out must have extent " + std::to_string(num_envs()) +
                        ", got " + std::to_string(out.extent(0)));
    }
    if (mask.data() != nullptr) check_mask(mask);
    auto s = seeds_;
    auto ep = epoch_;
    const bool masked = mask.data() != nullptr;
    ctx.for_each("TrackGen::seeds::effective", seeds_.extent(0), KOKKOS_LAMBDA(const int e) {
      if (!masked || mask(e) != 0) out(e) = effective_seed(s(e), ep(e));
    });
  }

 private:
  detail::DirectLauncher<Space> launcher() const { return {space_}; }

  Space space_;
  IntView seeds_;
  IntView epoch_;
  bool bound_;
};

}  // namespace trackgen

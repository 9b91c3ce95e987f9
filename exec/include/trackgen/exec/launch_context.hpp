// LaunchContext: the only way library code issues device work. It wraps one
// execution-space instance (on CUDA: one stream); every kernel, copy and fill of a
// stage goes through it, so the same stage code runs eagerly or is recorded into a
// graph (a HostGraph on host spaces, a CUDA graph on CUDA).
//
// Besides launches it offers device-side control flow that stays recordable:
// skip_unless() and bounded_loop(), and, inside a HOST stage only, host
// operations (host()).
//
// On Kokkos::Cuda (with the CUDA executor, see cuda_graph.hpp) a context records
// whenever the stream of its instance is capturing: work is issued on that stream
// as usual and CUDA records it. A caller's capture is one begun on that stream
// (cudaStreamBeginCapture, or cuda_exec::StreamCapture); a producer's own graph is
// captured by its GraphRunner through own_capture(). skip_unless() and every
// bounded_loop() window then become CUDA IF conditional nodes (cuda_exec::capture_if,
// CUDA >= 12.4) where conditional nodes are allowed (a producer's own graph, or a
// caller's capture inside exec::conditional; never inside exec::unconditional),
// and are recorded unconditionally otherwise.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/cuda_graph.hpp>
#include <trackgen/exec/host_graph.hpp>
#include <trackgen/exec/stage_info.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace trackgen {

template <class Space>
class HostOps;

/// Whether memory of execution space `Space` can be read directly on the host.
template <class Space>
inline constexpr bool host_accessible_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;

template <class Space>
class LaunchContext {
 public:
  using execution_space = Space;
  using IntView = DView<std::int32_t, Space>;

  /// An eager context on `space`.
  explicit LaunchContext(Space space = Space()) : space_(std::move(space)) {}

  /// The context of a public call: the explicit instance if given, else the
  /// ambient context of an enclosing scope() in this thread, else the default
  /// instance.
  static LaunchContext for_call(const Space* space = nullptr) {
    if (space != nullptr) return LaunchContext(*space);
    if (ambient() != nullptr) return *ambient();
    return LaunchContext(Space());
  }

  /// A context on `space` that records into `graph` instead of running (host
  /// spaces only). `allow_conditional`: whether skip_unless/bounded_loop may
  /// record conditional nodes (a producer's own graph: yes unless
  /// exec::unconditional is active; a caller's capture: only inside
  /// exec::conditional).
  static LaunchContext recording(const Space& space, HostGraph& graph, bool allow_conditional) {
    static_assert(host_accessible_v<Space>, "host graphs record host execution spaces only");
    LaunchContext c(space);
    c.graph_ = &graph;
    c.allow_conditional_ = allow_conditional && !exec::detail::unconditional_active();
    return c;
  }

  /// A caller's capture on `space` into `graph`: conditional nodes only inside
  /// exec::conditional.
  static LaunchContext capture(const Space& space, HostGraph& graph) {
    return recording(space, graph, exec::detail::conditional_active());
  }

  /// The same on the default instance of `Space`.
  static LaunchContext capture(HostGraph& graph) { return capture(Space(), graph); }

  /// The execution-space instance all work is issued on.
  const Space& space() const { return space_; }

  /// Whether work is being recorded rather than run (on Kokkos::Cuda: whether the
  /// instance's stream is capturing). Informational: stage code must not branch
  /// on it.
  bool capturing() const {
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) {
      if (cuda_exec::is_capturing(space_.cuda_stream())) return true;
    }
#endif
    return graph_ != nullptr;
  }

#if TRACKGEN_EXEC_CUDA
  /// This context, for a GraphRunner capturing the producer's own CUDA graph on
  /// the instance's stream: skip_unless() and bounded_loop() windows may record
  /// conditional nodes there (unless exec::unconditional is active meanwhile).
  LaunchContext own_capture() const {
    static_assert(cuda_graphs_v<Space>, "own_capture() is for Kokkos::Cuda contexts");
    LaunchContext c = *this;
    c.own_capture_ = true;
    return c;
  }
#endif

  /// A Kokkos profiling region around the work a context issues while it lives
  /// (see LaunchContext::region()).
  class Region {
   public:
    Region(const Region&) = delete;
    Region& operator=(const Region&) = delete;
    ~Region() {
      if (graph_ != nullptr) {
        graph_->add_marker([] { Kokkos::Profiling::popRegion(); });
      } else if (pushed_) {
        Kokkos::Profiling::popRegion();
      }
    }

   private:
    friend class LaunchContext;
    Region(HostGraph* graph, bool push, const std::string& name) : graph_(graph), pushed_(push) {
      if (graph_ != nullptr) {
        graph_->add_marker([name] { Kokkos::Profiling::pushRegion(name); });
      } else if (pushed_) {
        Kokkos::Profiling::pushRegion(name);
      }
    }
    HostGraph* graph_;
    bool pushed_;
  };

  /// Opens the Kokkos profiling region `name` for the work this context issues
  /// until the returned object dies, where the work runs: pushed and popped now
  /// when the context runs work; recorded as marker nodes when it records a
  /// HostGraph (every replay then shows the region, the recording does not);
  /// nothing while a CUDA stream capture records (a region would time the
  /// capture, not the work).
  [[nodiscard]] Region region(const std::string& name) const {
    return Region(graph_, graph_ == nullptr && !capturing(), name);
  }

  /// The stage this context runs (nullptr outside a Program stage).
  const StageInfo* stage() const { return stage_; }

  /// This context, running `stage` (used by Program).
  LaunchContext with_stage(const StageInfo* stage) const {
    LaunchContext c = *this;
    c.stage_ = stage;
    return c;
  }

  /// This context with every bounded_loop window forced to run (prepare()).
  LaunchContext unrolled() const {
    LaunchContext c = *this;
    c.force_unrolled_ = true;
    return c;
  }

  /// parallel_for over [0, n) on the context's instance.
  template <class F>
  void for_each(const std::string& name, std::size_t n, const F& f) const {
    emit([space = space_, name, n, f] {
      Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(space, 0, n), f);
    });
  }

  /// parallel_for over a TeamPolicy of `league` teams; `team_size` 0 picks
  /// Kokkos::AUTO. On host spaces teams are handed out dynamically (work
  /// stealing): envs differ in cost, and a thread that falls behind (a shared
  /// machine) leaves its work to the others; a pool of one thread (a single
  /// thread, or one of TrackGenerator's window threads) takes them in order
  /// instead, without the dynamic schedule's lock per team. Which thread runs
  /// a team never changes a result (docs/design.md#determinism).
  template <class F>
  void for_each_team(const std::string& name, int league, int team_size, const F& f) const {
    emit([space = space_, name, league, team_size, f] {
      if constexpr (host_accessible_v<Space>) {
        if (Kokkos::Experimental::UniqueToken<Space>(space).size() == 1) {
          team_for<Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Static>>>(space, name, league, team_size, f);
        } else {
          team_for<Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>>(space, name, league, team_size, f);
        }
      } else {
        team_for<Kokkos::TeamPolicy<Space>>(space, name, league, team_size, f);
      }
    });
  }

  /// Runs `f(c)`, where `c` is this context made to run its work at once:
  /// now when this context runs work; when it records a HostGraph, as one
  /// node that calls `f(c)` at every replay. For host work that launches its
  /// kernels from several threads at once (TrackGenerator's per-thread
  /// windows, docs/design.md#windows), whose launches a recording could not
  /// order. Host spaces only.
  template <class F>
  void as_one_node(const F& f) const {
    static_assert(host_accessible_v<Space>, "as_one_node is for host execution spaces");
    LaunchContext c = *this;
    c.graph_ = nullptr;
    emit([c, f] { f(c); });
  }

  /// Device copy dst <- src on the context's instance.
  template <class D, class S>
  void copy(const D& dst, const S& src) const {
    emit([space = space_, dst, src] { Kokkos::deep_copy(space, dst, src); });
  }

  /// Fills `v` with `value` on the context's instance.
  template <class V, class T>
  void fill(const V& v, const T& value) const {
    emit([space = space_, v, value] { Kokkos::deep_copy(space, v, value); });
  }

  /// Waits for the work issued on the instance (eager only; never while recording).
  void fence() const {
    if (capturing()) throw CaptureError("trackgen::LaunchContext::fence: cannot wait while recording a graph");
    space_.fence();
  }

  /// Runs body(ctx), skipped when flag[0] == 0 where that is possible.
  ///
  /// CONTRACT: body must be an exact no-op when flag[0] == 0, because whether the
  /// skip happens depends on where the call runs, never on data: recording with
  /// conditional nodes allowed -> a conditional node read at replay (on
  /// Kokkos::Cuda a CUDA IF node, where CUDA >= 12.4); eager on a
  /// host space -> a host read of the flag; otherwise the body runs (or is
  /// recorded) unconditionally. Returns true when the flag decided (conditional
  /// node or host read), false when the body ran or was recorded unconditionally.
  template <class Body>
  bool skip_unless(const IntView& flag, const Body& body) const {
    check_flag(flag, "skip_unless", "flag");
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) {
      if (cuda_conditional()) return cuda_exec::capture_if(space_.cuda_stream(), flag.data(), [&] { body(*this); });
    }
#endif
    if (capturing()) {
      if (!allow_conditional_) {
        body(*this);
        return false;
      }
      LaunchContext inner = *this;
      inner.graph_ = &graph_->add_conditional(flag_reader(flag));
      body(inner);
      return true;
    }
    if constexpr (host_accessible_v<Space>) {
      if (!force_unrolled_) {
        if (flag_reader(flag)()) body(*this);
        return true;
      }
    }
    body(*this);
    return false;
  }

  /// Runs body(ctx, it) for it in [0, n_iters), stopping early once active[0] == 0
  /// where the execution allows it. Iterations [0, min(first_check, n_iters))
  /// always run; then windows [lo, min(lo + check_every, n_iters)) for lo =
  /// first_check, first_check + check_every, ..., each preceded by a check of
  /// active[0] and skipped (with all later ones) once it reads 0.
  ///
  /// Lowerings, chosen by where the call runs, never by data: (a) eager on a host
  /// space: a host read of active[0] per window; (b) recording with conditional
  /// nodes allowed: one conditional node per window (a HostGraph conditional node,
  /// or on Kokkos::Cuda a CUDA IF node); (c) otherwise (eager on a device,
  /// exec::unconditional, prepare(), CUDA < 12.4): every window runs.
  ///
  /// CONTRACT (absorbing): the stage writes active[0] on the device before every
  /// check; once a check reads 0, every remaining iteration leaves all state read
  /// later bitwise unchanged. Then all lowerings give bitwise identical results.
  /// A stage passing `active` must declare CaptureClass::BOUNDED.
  template <class Body>
  void bounded_loop(int n_iters, const Body& body, const IntView& active = IntView(), int first_check = 0,
                    int check_every = 1) const {
    if (n_iters < 0) {
      throw ConfigError("trackgen::LaunchContext::bounded_loop: n_iters must be >= 0, got " + std::to_string(n_iters));
    }
    if (first_check < 0) {
      throw ConfigError("trackgen::LaunchContext::bounded_loop: first_check must be >= 0, got " +
                        std::to_string(first_check));
    }
    if (check_every < 1) {
      throw ConfigError("trackgen::LaunchContext::bounded_loop: check_every must be >= 1, got " +
                        std::to_string(check_every));
    }
    const bool checked = active.data() != nullptr;
    if (checked) {
      check_flag(active, "bounded_loop", "active");
      if (stage_ != nullptr && stage_->capture != CaptureClass::BOUNDED) {
        throw ConfigError("trackgen::LaunchContext::bounded_loop: stage '" + stage_->id + "' passes `active` but " +
                          "declares CaptureClass::" + to_string(stage_->capture) + " (must be BOUNDED)");
      }
    }
    const int head = checked ? (first_check < n_iters ? first_check : n_iters) : n_iters;
    for (int it = 0; it < head; ++it) body(*this, it);
    for (int lo = head; lo < n_iters; lo += check_every) {
      const int hi = lo + check_every < n_iters ? lo + check_every : n_iters;
      auto window = [&](const LaunchContext& c) {
        for (int it = lo; it < hi; ++it) body(c, it);
      };
#if TRACKGEN_EXEC_CUDA
      if constexpr (cuda_graphs_v<Space>) {
        if (cuda_conditional()) {
          cuda_exec::capture_if(space_.cuda_stream(), active.data(), [&] { window(*this); });
          continue;
        }
      }
#endif
      if (capturing() && allow_conditional_) {
        LaunchContext inner = *this;
        inner.graph_ = &graph_->add_conditional(flag_reader(active));
        window(inner);
        continue;
      }
      if constexpr (host_accessible_v<Space>) {
        if (!capturing() && !force_unrolled_ && !flag_reader(active)()) return;
      }
      window(*this);
    }
  }

  /// Host operations of the HOST stage running on this context.
  /// CaptureError outside a stage, ConfigError in a stage that is not HOST,
  /// NotCapturableError while recording.
  HostOps<Space> host() const;

  /// RAII guard making a context the ambient one of this thread (see for_call()).
  class Scope {
   public:
    explicit Scope(const LaunchContext& c) : previous_(ambient()), ctx_(c) { ambient() = &ctx_; }
    ~Scope() { ambient() = previous_; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const LaunchContext* previous_;
    LaunchContext ctx_;
  };

  /// Makes this the ambient context for nested for_call() in this thread.
  [[nodiscard]] Scope scope() const { return Scope(*this); }

 private:
  static const LaunchContext*& ambient() {
    static thread_local const LaunchContext* p = nullptr;
    return p;
  }

  /// parallel_for of `f` over `league` teams of `team_size` (0: Kokkos::AUTO)
  /// under the TeamPolicy type `Policy`.
  template <class Policy, class F>
  static void team_for(const Space& space, const std::string& name, int league, int team_size, const F& f) {
    if (team_size > 0) {
      Kokkos::parallel_for(name, Policy(space, league, team_size), f);
    } else {
      Kokkos::parallel_for(name, Policy(space, league, Kokkos::AUTO), f);
    }
  }

  template <class Op>
  void emit(Op&& op) const {
    if (graph_ != nullptr) {
      graph_->add(std::forward<Op>(op));
    } else {
      op();
    }
  }

#if TRACKGEN_EXEC_CUDA
  /// Whether skip_unless/bounded_loop record a CUDA conditional node now: the
  /// stream is capturing, for the producer's own graph or inside
  /// exec::conditional, and not inside exec::unconditional.
  bool cuda_conditional() const {
    return (own_capture_ || exec::detail::conditional_active()) && !exec::detail::unconditional_active() &&
           capturing();
  }
#endif

  void check_flag(const IntView& flag, const char* api, const char* name) const {
    if (flag.data() == nullptr || flag.extent(0) != 1) {
      throw ConfigError(std::string("trackgen::LaunchContext::") + api + ": " + name +
                        " must be a [1] int32 View, got extent " + std::to_string(flag.extent(0)));
    }
  }

  /// A host-side reader of flag[0] (fences the instance first).
  std::function<bool()> flag_reader(const IntView& flag) const {
    return [space = space_, flag] {
      space.fence();
      if constexpr (host_accessible_v<Space>) {
        return flag(0) != 0;
      } else {
        std::int32_t v = 0;
        Kokkos::deep_copy(v, Kokkos::subview(flag, 0));
        return v != 0;
      }
    };
  }

  Space space_;
  HostGraph* graph_ = nullptr;
  const StageInfo* stage_ = nullptr;
  bool allow_conditional_ = false;
  bool force_unrolled_ = false;
#if TRACKGEN_EXEC_CUDA
  bool own_capture_ = false;  // a GraphRunner capturing the producer's own CUDA graph
#endif
};

}  // namespace trackgen

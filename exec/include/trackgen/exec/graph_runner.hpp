// GraphRunner: the execution policy of one producer (docs/design.md#execution-layer).
//
//  - RECORD: the call's context is recording (a caller's capture): the program is
//    recorded into it; a program with HOST stages raises NotCapturableError
//    naming them, before any work is issued.
//  - EAGER (Policy::eager): the program runs directly.
//  - SELF-GRAPH (Policy::automatic): the producer's own graph for the call's key
//    is recorded on first use and replayed by every later call with that key; a
//    program with HOST stages runs SEGMENTED: HOST stages eagerly, every run of
//    other stages from its own graph.
//
// Graphs are HostGraphs on host spaces. On Kokkos::Cuda (with the CUDA executor,
// see cuda_graph.hpp) they are CUDA graphs: a self-graph is captured with
// cudaStreamBeginCapture on the stream of the call's Kokkos::Cuda instance
// (`space.cuda_stream()`, thread-local mode), instantiated, and launched on that
// stream; a caller's capture is a capture open on that stream when run() is
// called, and the runner's owner (set_owner) is then kept alive by the caller's
// graph through a CUDA user object. Every run outside a capture first releases
// the owners whose graphs CUDA has destroyed. On other device spaces every
// policy runs eagerly.
//
// A runner is single-writer: one producer must not run from two threads at once.
// Distinct producers may be used from distinct threads: on host spaces their
// runs are serialized by a per-space lock (serial_lock()), because Kokkos' host
// backends do not accept parallel dispatches from two threads at once.
#pragma once

#include <trackgen/core/logging.hpp>
#include <trackgen/exec/program.hpp>

#include <map>
#include <mutex>
#include <optional>

namespace trackgen {

namespace detail {
/// The self-graph type of a space: a HostGraph, or a CudaGraph on Kokkos::Cuda.
template <class Space>
struct self_graph {
  using type = HostGraph;
};
#if TRACKGEN_EXEC_CUDA
template <>
struct self_graph<Kokkos::Cuda> {
  using type = CudaGraph;
};
#endif
}  // namespace detail

/// Identifies which body a self-graph holds (e.g. {advance, mask pointer});
/// equal keys must mean identical launches on identical buffers.
using GraphKey = std::vector<std::uintptr_t>;

enum class Policy {
  automatic,  ///< record into a caller's capture, else replay the self-graph (recorded on first use)
  eager,      ///< record into a caller's capture, else run directly (never a self-graph)
};

template <class Space>
class GraphRunner {
 public:
  /// At most this many non-default keys get a self-graph; further keys run eagerly.
  static constexpr std::size_t max_keyed_graphs = 16;
  /// The graph type of the self-graphs: HostGraph, or CudaGraph on Kokkos::Cuda.
  using graph_type = typename detail::self_graph<Space>::type;
  /// Whether this space records self-graphs (host spaces and Kokkos::Cuda).
  static constexpr bool records_graphs = host_accessible_v<Space> || cuda_graphs_v<Space>;

  struct RunOptions {
    Policy policy = Policy::automatic;
    std::optional<GraphKey> key;  ///< nullopt: the producer's default body
    bool sync = false;            ///< fence afterwards (skipped when recording)
  };

  /// `name` labels error messages and warnings.
  explicit GraphRunner(std::string name = "producer") : name_(std::move(name)) {}

  /// The lock a call must hold while it issues work on a host space (a no-op
  /// lock on device spaces, whose instances are independent streams).
  /// Reentrant; run() and prepare() take it themselves.
  static std::unique_lock<std::recursive_mutex> serial_lock() {
    static std::recursive_mutex m;
    if constexpr (host_accessible_v<Space>) return std::unique_lock(m);
    return std::unique_lock<std::recursive_mutex>();
  }

  /// serial_lock() plus, on Kokkos 3.4 OpenMP, adoption of the OpenMP instance
  /// by the calling thread (compat::OpenMPThreadScope) while the lock is held.
  struct SerialScope {
    std::unique_lock<std::recursive_mutex> lock = serial_lock();
    compat::OpenMPThreadScope adopt;
  };

  const std::string& name() const { return name_; }

  /// Whether prepare() ran.
  bool prepared() const { return prepared_; }

  /// One real pass of `program` on `ctx` outside any capture, with every
  /// bounded_loop window forced to run, then a fence. Leaves a valid result.
  void prepare(const Program<Space>& program, const LaunchContext<Space>& ctx) {
    if (ctx.capturing()) {
      throw CaptureError("trackgen::GraphRunner::prepare (" + name_ + "): the context is recording a graph");
    }
    const SerialScope serial;
    release_retained();
    program.enqueue(ctx.unrolled());
    ctx.space().fence();
    prepared_ = true;
  }

  /// Raises where run() would refuse `ctx` before any launch: a recording
  /// context and a program with HOST stages.
  void check_record(const Program<Space>& program, const LaunchContext<Space>& ctx) const {
    if (ctx.capturing() && !program.capturable()) {
      const auto ids = program.host_stage_ids();
      std::string list;
      for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
      throw NotCapturableError(name_, "cannot be recorded into a caller's capture: HOST stage(s) " + list, ids);
    }
  }

  /// Runs `program` once under the policy on `ctx` (see the file comment).
  void run(const Program<Space>& program, const LaunchContext<Space>& ctx, const RunOptions& opt = {}) {
    check_record(program, ctx);
    if (ctx.capturing()) {
      program.enqueue(ctx);
      anchor_owner(ctx);
      return;
    }
    const SerialScope serial;
    release_retained();
    if (opt.key && !prepared_) {
      throw CaptureError("trackgen::GraphRunner::run (" + name_ + "): a keyed self-graph needs prepare() first");
    }
    Entry* entry = nullptr;
    if (opt.policy == Policy::automatic && records_graphs) entry = find_or_record(program, ctx, opt.key);
    if (entry == nullptr) {
      program.enqueue(ctx);
    } else {
      const auto segs = program.segments();
      for (std::size_t i = 0; i < segs.size(); ++i) {
        if (segs[i].host) {
          program.enqueue(ctx, segs[i].first, segs[i].last);
        } else {
          replay(*entry->graphs[i], ctx);
        }
      }
    }
    if (opt.sync) ctx.space().fence();
  }

  /// The whole-body self-graph of `key`, if recorded (nullptr for a segmented body).
  const graph_type* graph_for(const std::optional<GraphKey>& key = std::nullopt) const {
    auto it = graphs_.find(key);
    if (it == graphs_.end() || it->second.graphs.size() != 1) return nullptr;
    return it->second.graphs[0].get();
  }

  /// The per-segment self-graphs of `key` (nullptr at HOST segments); empty if none.
  std::vector<const graph_type*> segment_graphs_for(const std::optional<GraphKey>& key = std::nullopt) const {
    std::vector<const graph_type*> out;
    auto it = graphs_.find(key);
    if (it != graphs_.end()) {
      for (const auto& g : it->second.graphs) out.push_back(g.get());
    }
    return out;
  }

  /// Keys of every self-graph recorded so far (nullopt: the default body).
  std::vector<std::optional<GraphKey>> graph_keys() const {
    std::vector<std::optional<GraphKey>> keys;
    for (const auto& [k, e] : graphs_) keys.push_back(k);
    return keys;
  }

  /// Drops every recorded self-graph (e.g. after the producer's buffers changed).
  void reset_graphs() { graphs_.clear(); }

#if TRACKGEN_EXEC_CUDA
  /// The object a caller's CUDA graph keeps alive when run() records this
  /// runner's program into it (through a CUDA user object, see exec::retain),
  /// so that the buffers the graph references outlive the caller's handle to
  /// the producer. Held weakly here; an expired or empty owner anchors nothing.
  void set_owner(std::weak_ptr<void> owner) { owner_ = std::move(owner); }
#endif

 private:
  struct Entry {
    std::vector<std::unique_ptr<graph_type>> graphs;  // one per segment; nullptr at HOST segments
  };

  /// Records the self-graph of one non-HOST segment [first, last).
  std::unique_ptr<graph_type> record_segment(const Program<Space>& program, const LaunchContext<Space>& ctx,
                                             std::size_t first, std::size_t last) {
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) {
      return std::make_unique<CudaGraph>(
          capture_cuda_graph(ctx.space(), [&] { program.enqueue(ctx.own_capture(), first, last); }));
    } else
#endif
    {
      auto g = std::make_unique<HostGraph>();
      program.enqueue(LaunchContext<Space>::recording(ctx.space(), *g, true), first, last);
      return g;
    }
  }

  /// Replays one segment's self-graph on ctx's instance.
  static void replay(const graph_type& graph, const LaunchContext<Space>& ctx) {
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) {
      graph.replay(ctx.space());
    } else
#endif
    {
      (void)ctx;
      graph.replay();
    }
  }

  /// Ties the owner to the caller's CUDA capture open on ctx's stream (CUDA only).
  void anchor_owner(const LaunchContext<Space>& ctx) const {
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) {
      if (auto owner = owner_.lock()) exec::retain(ctx.space(), std::move(owner));
      return;
    }
#endif
    (void)ctx;
  }

  /// Releases the owners whose CUDA graphs were destroyed (CUDA only; outside
  /// any capture).
  static void release_retained() {
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) cuda_exec::release_retained_owners();
#endif
  }

  Entry* find_or_record(const Program<Space>& program, const LaunchContext<Space>& ctx,
                        const std::optional<GraphKey>& key) {
    if constexpr (records_graphs) {
      if (auto it = graphs_.find(key); it != graphs_.end()) return &it->second;
      if (key && graphs_.size() - graphs_.count(std::nullopt) >= max_keyed_graphs) {
        exec::detail::warn_once("graph-keys:" + name_,
                                "trackgen::GraphRunner (" + name_ + "): more than " +
                                    std::to_string(max_keyed_graphs) +
                                    " keyed self-graphs; further keys run eagerly");
        return nullptr;
      }
      if constexpr (cuda_graphs_v<Space>) {
        // A capture must not load kernels or allocate: the default body warms up
        // with one real pass first (keyed bodies already required prepare()).
        if (!prepared_) prepare(program, ctx);
      }
      Entry e;
      for (const auto& seg : program.segments()) {
        e.graphs.push_back(seg.host ? nullptr : record_segment(program, ctx, seg.first, seg.last));
      }
      return &graphs_.emplace(key, std::move(e)).first->second;
    } else {
      (void)program, (void)ctx, (void)key;
      return nullptr;
    }
  }

  std::string name_;
  bool prepared_ = false;
  std::map<std::optional<GraphKey>, Entry> graphs_;
#if TRACKGEN_EXEC_CUDA
  std::weak_ptr<void> owner_;
#endif
};

}  // namespace trackgen

// GraphRunner: the execution policy of one producer (seeds/execution-layer-api).
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
// Graphs are HostGraphs on host spaces. A runner is single-writer: one producer
// must not run from two threads at once. Distinct producers may be used from
// distinct threads: on host spaces their runs are serialized by a per-space lock
// (serial_lock()), because Kokkos' host backends do not accept parallel
// dispatches from two threads at once.
#pragma once

#include <trackgen/core/logging.hpp>
#include <trackgen/exec/program.hpp>

#include <map>
#include <mutex>
#include <optional>

namespace trackgen {

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
      return;
    }
    const SerialScope serial;
    if (opt.key && !prepared_) {
      throw CaptureError("trackgen::GraphRunner::run (" + name_ + "): a keyed self-graph needs prepare() first");
    }
    Entry* entry = nullptr;
    if (opt.policy == Policy::automatic && host_accessible_v<Space>) entry = find_or_record(program, ctx, opt.key);
    if (entry == nullptr) {
      program.enqueue(ctx);
    } else {
      const auto segs = program.segments();
      for (std::size_t i = 0; i < segs.size(); ++i) {
        if (segs[i].host) {
          program.enqueue(ctx, segs[i].first, segs[i].last);
        } else {
          entry->graphs[i]->replay();
        }
      }
    }
    if (opt.sync) ctx.space().fence();
  }

  /// The whole-body self-graph of `key`, if recorded (nullptr for a segmented body).
  const HostGraph* graph_for(const std::optional<GraphKey>& key = std::nullopt) const {
    auto it = graphs_.find(key);
    if (it == graphs_.end() || it->second.graphs.size() != 1) return nullptr;
    return it->second.graphs[0].get();
  }

  /// The per-segment self-graphs of `key` (nullptr at HOST segments); empty if none.
  std::vector<const HostGraph*> segment_graphs_for(const std::optional<GraphKey>& key = std::nullopt) const {
    std::vector<const HostGraph*> out;
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

 private:
  struct Entry {
    std::vector<std::unique_ptr<HostGraph>> graphs;  // one per segment; nullptr at HOST segments
  };

  Entry* find_or_record(const Program<Space>& program, const LaunchContext<Space>& ctx,
                        const std::optional<GraphKey>& key) {
    if constexpr (host_accessible_v<Space>) {
      if (auto it = graphs_.find(key); it != graphs_.end()) return &it->second;
      if (key && graphs_.size() - graphs_.count(std::nullopt) >= max_keyed_graphs) {
        exec::detail::warn_once("graph-keys:" + name_,
                                "trackgen::GraphRunner (" + name_ + "): more than " +
                                    std::to_string(max_keyed_graphs) +
                                    " keyed self-graphs; further keys run eagerly");
        return nullptr;
      }
      Entry e;
      for (const auto& seg : program.segments()) {
        if (seg.host) {
          e.graphs.push_back(nullptr);
          continue;
        }
        auto g = std::make_unique<HostGraph>();
        program.enqueue(LaunchContext<Space>::recording(*g, ctx.space(), true), seg.first, seg.last);
        e.graphs.push_back(std::move(g));
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
};

}  // namespace trackgen

// HostGraph: the host-side equivalent of a CUDA graph. While a LaunchContext
// records into a HostGraph, every kernel launch, copy and fill it is asked for is
// stored as a closure instead of being run; `skip_unless` and `bounded_loop`
// windows become conditional nodes whose flag is read on the host at replay.
// Replaying runs the same closures in the same order, so a replay is bitwise the
// same as the eager run it was recorded from.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace trackgen {

class HostGraph {
 public:
  /// Appends a plain node (a launch, a copy or a fill).
  void add(std::function<void()> op) { nodes_.push_back({std::move(op), {}, nullptr, false}); }

  /// Appends a marker node: run at replay in order like a plain node, but not
  /// work (a profiling region push or pop), so launch_nodes() does not count it.
  void add_marker(std::function<void()> op) { nodes_.push_back({std::move(op), {}, nullptr, true}); }

  /// Appends a conditional node: at replay `condition()` is evaluated on the host
  /// (it fences and reads a device flag) and the returned body graph is replayed
  /// only when it yields true. Record the body into the returned graph.
  HostGraph& add_conditional(std::function<bool()> condition) {
    nodes_.push_back({{}, std::move(condition), std::make_unique<HostGraph>(), false});
    return *nodes_.back().body;
  }

  /// Runs every node in order.
  void replay() const {
    for (const auto& n : nodes_) {
      if (n.body) {
        if (n.condition()) n.body->replay();
      } else {
        n.op();
      }
    }
  }

  /// Number of nodes at this level (a conditional node counts once, markers count).
  std::size_t size() const { return nodes_.size(); }
  /// Number of conditional nodes, nested ones included.
  std::size_t conditional_nodes() const {
    std::size_t c = 0;
    for (const auto& n : nodes_) c += n.body ? 1 + n.body->conditional_nodes() : 0;
    return c;
  }
  /// Number of plain (launch/copy/fill) nodes, nested ones included.
  std::size_t launch_nodes() const {
    std::size_t c = 0;
    for (const auto& n : nodes_) c += n.body ? n.body->launch_nodes() : (n.marker ? 0 : 1);
    return c;
  }

 private:
  struct Node {
    std::function<void()> op;
    std::function<bool()> condition;
    std::unique_ptr<HostGraph> body;
    bool marker;
  };
  std::vector<Node> nodes_;
};

}  // namespace trackgen

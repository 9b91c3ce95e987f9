// Stages and programs: a stage is one step of a producer's body with a declared
// capture class and the buffers it reads and writes; a program is the ordered
// list of stages a GraphRunner executes.
#pragma once

#include <trackgen/exec/host_ops.hpp>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace trackgen {

/// A named buffer a stage reads or writes, type-erased: `snapshot()` returns its
/// bytes on the host (used by the conformance kit to compare lowerings).
struct BufferRef {
  std::string name;
  std::function<std::vector<unsigned char>()> snapshot;
};

/// A BufferRef for any Kokkos View.
template <class V>
BufferRef buffer(std::string name, const V& v) {
  return {std::move(name), [v] {
            auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
            std::vector<unsigned char> bytes(view_bytes(h));
            if (!bytes.empty()) std::memcpy(bytes.data(), h.data(), bytes.size());
            return bytes;
          }};
}

template <class Space>
struct Stage {
  std::string id;                                           ///< unique within its program
  CaptureClass capture = CaptureClass::STATIC;              ///< how it may be executed in a graph
  std::vector<BufferRef> reads;                             ///< buffers it reads
  std::vector<BufferRef> writes;                            ///< buffers it writes
  std::function<void(const LaunchContext<Space>&)> enqueue;  ///< emits the work through the context
};

template <class Space>
class Program {
 public:
  explicit Program(std::string name = "program") : name_(std::move(name)) {}

  /// Appends a stage; ConfigError for an empty id, a duplicate id or no enqueue.
  Program& add(Stage<Space> stage) {
    if (stage.id.empty()) throw ConfigError("trackgen::Program::add (" + name_ + "): stage id must not be empty");
    if (!stage.enqueue) throw ConfigError("trackgen::Program::add (" + name_ + "): stage '" + stage.id + "' has no enqueue");
    for (const auto& s : stages_) {
      if (s->stage.id == stage.id) {
        throw ConfigError("trackgen::Program::add (" + name_ + "): duplicate stage id '" + stage.id + "'");
      }
    }
    auto entry = std::make_unique<Entry>();
    entry->info = {stage.id, stage.capture, &entry->host_i32};
    entry->stage = std::move(stage);
    stages_.push_back(std::move(entry));
    return *this;
  }

  const std::string& name() const { return name_; }
  std::size_t size() const { return stages_.size(); }
  const Stage<Space>& stage(std::size_t i) const { return stages_[i]->stage; }

  /// Whether every stage may be recorded into a graph (no HOST stage).
  bool capturable() const { return host_stage_ids().empty(); }

  /// Ids of the HOST stages, in order.
  std::vector<std::string> host_stage_ids() const {
    std::vector<std::string> ids;
    for (const auto& s : stages_) {
      if (s->stage.capture == CaptureClass::HOST) ids.push_back(s->stage.id);
    }
    return ids;
  }

  /// Runs stages [first, last) through `ctx`, each with its StageInfo.
  void enqueue(const LaunchContext<Space>& ctx, std::size_t first = 0, std::size_t last = SIZE_MAX) const {
    for (std::size_t i = first; i < stages_.size() && i < last; ++i) {
      stages_[i]->stage.enqueue(ctx.with_stage(&stages_[i]->info));
    }
  }

  /// The segments of segmented execution: maximal runs of non-HOST stages and
  /// single HOST stages, as [first, last) stage ranges with their HOST flag.
  struct Segment {
    std::size_t first, last;
    bool host;
  };
  std::vector<Segment> segments() const {
    std::vector<Segment> out;
    for (std::size_t i = 0; i < stages_.size(); ++i) {
      const bool host = stages_[i]->stage.capture == CaptureClass::HOST;
      if (!host && !out.empty() && !out.back().host) {
        out.back().last = i + 1;
      } else {
        out.push_back({i, i + 1, host});
      }
    }
    return out;
  }

 private:
  struct Entry {
    Stage<Space> stage;
    StageInfo info;
    std::int32_t host_i32 = 0;
  };
  std::string name_;
  std::vector<std::unique_ptr<Entry>> stages_;
};

}  // namespace trackgen

// The bound Track and GateSequence: Holders of a batch's Views (shared with the
// producer that wrote them, a clone, or Views over arrays given by Python).
#pragma once

#include "arrays.hpp"
#include "runtime.hpp"

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/runtime/checkpoints.hpp>

#include <cstdint>
#include <string>

namespace trackgen::python {

/// A Track whose fields Python reads as arrays without a copy.
class PyTrack : public Holder {
 public:
  /// `read_only`: a producer's own Track (its arrays are exported read-only:
  /// the producer writes only the padding rows its last batch left real).
  explicit PyTrack(Track<MemSpace> t, bool read_only = false);
  void release() noexcept override;
  /// Address of the data() of field `field` (tests compare it with the arrays').
  std::uintptr_t data_ptr(const std::string& field) const;

  Track<MemSpace> track;
  bool read_only;
};

/// A GateSequence whose fields Python reads as arrays without a copy.
class PyGates : public Holder {
 public:
  explicit PyGates(GateSequence<MemSpace> g) : gates(std::move(g)) {}
  void release() noexcept override { gates = GateSequence<MemSpace>(); }

  GateSequence<MemSpace> gates;
};

/// A CheckpointSet (a sampler's, a course's, aliasing arrays or a gate sequence).
class PyCheckpoints : public Holder {
 public:
  explicit PyCheckpoints(CheckpointSet<Space> s) : set(std::move(s)) {}
  void release() noexcept override { set = CheckpointSet<Space>(); }
  CheckpointSet<Space> set;
};

}  // namespace trackgen::python

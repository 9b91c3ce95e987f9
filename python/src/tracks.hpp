// The bound Track: a Holder of a Track's Views (shared with the generator that
// wrote them, or a clone).
#pragma once

#include "arrays.hpp"
#include "runtime.hpp"

#include <trackgen/core/track.hpp>

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

}  // namespace trackgen::python

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
  explicit PyTrack(Track<MemSpace> t);
  void release() noexcept override;
  /// Address of the data() of field `field` (tests compare it with the arrays').
  std::uintptr_t data_ptr(const std::string& field) const;

  Track<MemSpace> track;
};

}  // namespace trackgen::python

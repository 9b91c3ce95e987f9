// HostOps: the host operations of a HOST stage (ctx.host()), bound to one call's
// execution-space instance. Every copy goes through a host buffer allocated when
// the stage was built, and every wait fences that instance only, so a HOST stage
// allocates nothing per call.
#pragma once

#include <trackgen/exec/launch_context.hpp>

namespace trackgen {

template <class Space>
class HostOps {
 public:
  using HostView = Kokkos::View<std::int32_t*, Kokkos::HostSpace>;

  HostOps(const LaunchContext<Space>& ctx, const StageInfo& stage) : ctx_(ctx), stage_(stage) {}

  /// The id of the HOST stage these operations belong to.
  const std::string& stage_id() const { return stage_.id; }

  /// Waits until the work queued on the context's instance has finished.
  void sync() const { ctx_.space().fence(); }

  /// arr[index] of an int32 device View, through the stage's [1] host buffer.
  std::int32_t read_i32(const DView<std::int32_t, Space>& arr, std::size_t index = 0) const {
    if (index >= arr.extent(0)) {
      throw ConfigError("trackgen::HostOps::read_i32 (stage '" + stage_.id + "'): index " + std::to_string(index) +
                        " out of range for extent " + std::to_string(arr.extent(0)));
    }
    Kokkos::View<std::int32_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(stage_.host_i32);
    Kokkos::deep_copy(ctx_.space(), dst, Kokkos::subview(arr, index));
    sync();
    return *stage_.host_i32;
  }

  /// Copies the device View `src` into the host buffer `via` (preallocated, at
  /// least as large), waits, and returns `via`.
  template <class Src, class Via>
  const Via& readback(const Src& src, const Via& via) const {
    check_via(src.extent(0), via.extent(0), "readback");
    Kokkos::deep_copy(ctx_.space(), Kokkos::subview(via, std::make_pair(std::size_t(0), src.extent(0))), src);
    sync();
    return via;
  }

  /// Copies the host buffer `via` (filled by the caller) into the device View
  /// `dst` and waits, so `via` is reusable on return.
  template <class Dst, class Via>
  void upload(const Dst& dst, const Via& via) const {
    check_via(dst.extent(0), via.extent(0), "upload");
    Kokkos::deep_copy(ctx_.space(), dst, Kokkos::subview(via, std::make_pair(std::size_t(0), dst.extent(0))));
    sync();
  }

 private:
  void check_via(std::size_t need, std::size_t have, const char* api) const {
    if (have < need) {
      throw ConfigError(std::string("trackgen::HostOps::") + api + " (stage '" + stage_.id + "'): via holds " +
                        std::to_string(have) + " elements, needs " + std::to_string(need));
    }
  }

  LaunchContext<Space> ctx_;
  const StageInfo& stage_;
};

template <class Space>
HostOps<Space> LaunchContext<Space>::host() const {
  if (stage_ == nullptr) throw CaptureError("trackgen::LaunchContext::host: not inside the enqueue of a pipeline stage");
  if (stage_->capture != CaptureClass::HOST) {
    throw ConfigError("trackgen::LaunchContext::host: stage '" + stage_->id + "' declares CaptureClass::" +
                      to_string(stage_->capture) + " (host operations need HOST)");
  }
  if (capturing()) {
    throw NotCapturableError(stage_->id, "host operations cannot be recorded into a graph", {stage_->id});
  }
  return HostOps<Space>(*this, *stage_);
}

}  // namespace trackgen

// Small device operations shared by producers.
#pragma once

#include <trackgen/exec/launch_context.hpp>

namespace trackgen::ops {

/// flag[0] = 1 if any mask[e] != 0, else 0: two launches on the context, no host
/// read, integer result (independent of scheduling).
template <class Space>
void any_set(const LaunchContext<Space>& ctx, const DView<std::int32_t, Space>& mask,
             const DView<std::int32_t, Space>& flag) {
  ctx.fill(flag, std::int32_t(0));
  ctx.for_each("TrackGen::exec::any_set", mask.extent(0), KOKKOS_LAMBDA(const int e) {
    if (mask(e) != 0) Kokkos::atomic_exchange(&flag(0), std::int32_t(1));
  });
}

}  // namespace trackgen::ops

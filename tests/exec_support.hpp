// Test stages of the execution-layer tests (tests/test_exec.cpp and the Kokkos
// CUDA tests in tests/cuda/): small kernels issued through a LaunchContext, and an
// absorbing BOUNDED stage for the bounded_loop lowerings.
#pragma once

#include <trackgen/exec/program.hpp>

#include <cstdint>

namespace trackgen::test {

template <class Space>
using IV = DView<std::int32_t, Space>;

/// x[i] += v for every i.
template <class Space>
void add_value(const LaunchContext<Space>& ctx, const IV<Space>& x, int v) {
  ctx.for_each("test::add", x.extent(0), KOKKOS_LAMBDA(const int i) { x(i) += v; });
}

/// One absorbing iteration: x[i] = min(x[i] + 1, cap[i]); active = any x < cap.
template <class Space>
void saturate_step(const LaunchContext<Space>& ctx, const IV<Space>& x, const IV<Space>& cap,
                   const IV<Space>& active) {
  ctx.for_each("test::saturate", x.extent(0), KOKKOS_LAMBDA(const int i) {
    if (x(i) < cap(i)) x(i) += 1;
  });
  ctx.fill(active, std::int32_t(0));
  ctx.for_each("test::active", x.extent(0), KOKKOS_LAMBDA(const int i) {
    if (x(i) < cap(i)) Kokkos::atomic_exchange(&active(0), std::int32_t(1));
  });
}

/// A stage of `n_iters` absorbing saturate_step iterations in windows of 2
/// checked on `active`.
template <class Space>
Stage<Space> saturate_stage(IV<Space> x, IV<Space> cap, IV<Space> active, int n_iters,
                            CaptureClass cls = CaptureClass::BOUNDED) {
  Stage<Space> s;
  s.id = "saturate";
  s.capture = cls;
  s.reads = {buffer("cap", cap)};
  s.writes = {buffer("x", x), buffer("active", active)};
  s.enqueue = [=](const LaunchContext<Space>& ctx) {
    ctx.fill(active, std::int32_t(1));
    ctx.bounded_loop(
        n_iters, [=](const LaunchContext<Space>& c, int) { saturate_step(c, x, cap, active); }, active, 0, 2);
  };
  return s;
}

/// A HOST stage "host-step" that syncs through HostOps.
template <class Space>
Stage<Space> host_sync_stage() {
  Stage<Space> s;
  s.id = "host-step";
  s.capture = CaptureClass::HOST;
  s.enqueue = [](const LaunchContext<Space>& c) { c.host().sync(); };
  return s;
}

/// x = 0, cap[i] = i % 5.
template <class Space>
void reset_saturate(const IV<Space>& x, const IV<Space>& cap) {
  Kokkos::deep_copy(x, 0);
  auto h = Kokkos::create_mirror_view(cap);
  for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = static_cast<int>(i % 5);
  Kokkos::deep_copy(cap, h);
}

}  // namespace trackgen::test

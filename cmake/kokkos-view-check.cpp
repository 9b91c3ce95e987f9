// Configure-time check (cmake/TrackGenDependencies.cmake): a default-constructed
// Kokkos::View, alone and as a member, must be destructible without Kokkos being
// initialized. A View whose allocation tracker the compiler left zeroed (kokkos
// issue #7464) dereferences a null record in its destructor and crashes here.
#include <Kokkos_Core.hpp>

namespace {
struct Holder {
  Kokkos::View<int*, Kokkos::HostSpace> view;
  int size = 0;
};
}  // namespace

int main() {
  { const Kokkos::View<int*, Kokkos::HostSpace> view; }
  { const Holder holder; }
  return 0;
}

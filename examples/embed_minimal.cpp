// The smallest embedding of TrackGen: generate a batch, read it on the host.
#include <trackgen/trackgen.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // the application owns the Kokkos runtime

  trackgen::TrackGenConfig config;
  config.num_envs = 16;  // batch size E: one independent track per environment
  config.generator = "bezier";

  // Env e uses base seed 100 + e; a TrackGenerator allocates everything once.
  trackgen::TrackGenerator<> gen(config, trackgen::SeedState<>(config.num_envs, 100));
  const auto& track = gen.generate();  // same Track (stable pointers) every call

  const auto host = track.to_host();  // one call copies every field to host memory
  int valid = 0;
  for (int e = 0; e < config.num_envs; ++e) {
    valid += host.valid(e);
    const trackgen::Vec3f p = host.center(e * host.n_max());  // first centerline point
    std::printf("env %2d: valid=%d points=%3d length=%.3f start=(%.3f, %.3f)\n", e, host.valid(e), host.count(e),
                host.length(e), p.x, p.y);
  }
  std::printf("%d of %d tracks valid\n", valid, config.num_envs);
  return valid > 0 ? 0 : 1;
}

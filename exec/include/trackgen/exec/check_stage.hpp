// check_stage: the conformance kit a user runs on their own stage. It executes
// the stage under every lowering TrackGen may pick and compares the bytes of
// every buffer the stage declares as written:
//   - eager:         bounded_loop windows polled on the host (lowering a)
//   - graph:         recorded into a HostGraph with conditional nodes, replayed (b)
//   - unconditional: recorded with exec::unconditional, every window replayed (c)
//   - unrolled:      eager with every window forced (the prepare() pass)
// On Kokkos::Cuda (with the CUDA executor) "graph" and "unconditional" are CUDA
// graphs captured on the space's stream (a CUDA IF node per window where CUDA >=
// 12.4), launched once; there the eager run is lowering (c), as on any device.
// Equal bytes across all four show the absorbing contract holds for the inputs
// `reset` produces (the polled run stops early, the unrolled one runs every
// iteration). It also checks the declared capture class is usable.
#pragma once

#include <trackgen/exec/graph_runner.hpp>

#include <string>
#include <vector>

namespace trackgen {

struct StageCheckReport {
  bool ok = true;
  std::vector<std::string> problems;  ///< human-readable findings, empty when ok
};

/// Runs `stage` on the instance `space` under each lowering, calling `reset()`
/// before each run to restore its inputs, and compares the written buffers
/// bitwise against the eager run.
template <class Space>
StageCheckReport check_stage(const Space& space, const Stage<Space>& stage, const std::function<void()>& reset) {
  StageCheckReport report;
  auto fail = [&](std::string msg) {
    report.ok = false;
    report.problems.push_back(std::move(msg));
  };
  if (stage.writes.empty()) fail("stage '" + stage.id + "' declares no written buffers: nothing can be compared");
  Program<Space> program("check_stage:" + stage.id);
  program.add(stage);

  auto snapshot = [&] {
    space.fence();
    std::vector<std::vector<unsigned char>> s;
    for (const auto& b : stage.writes) s.push_back(b.snapshot());
    return s;
  };
  auto run_guarded = [&](const char* lowering, const std::function<void()>& run) {
    reset();
    space.fence();
    try {
      run();
    } catch (const std::exception& e) {
      fail(std::string(lowering) + ": " + e.what());
      return std::vector<std::vector<unsigned char>>{};
    }
    return snapshot();
  };

  const LaunchContext<Space> eager(space);
  const auto ref = run_guarded("eager", [&] { program.enqueue(eager); });
  std::vector<std::pair<const char*, std::vector<std::vector<unsigned char>>>> others;
  if (stage.capture == CaptureClass::HOST) {
    // A HOST stage must refuse recording; only the eager and unrolled runs apply.
    const auto refuse = [&](const LaunchContext<Space>& capture) {
      try {
        GraphRunner<Space>("check_stage").run(program, capture);
        fail("HOST stage '" + stage.id + "' was recorded into a capture instead of raising NotCapturableError");
      } catch (const NotCapturableError&) {
      }
    };
#if TRACKGEN_EXEC_CUDA
    if constexpr (cuda_graphs_v<Space>) {
      const cuda_exec::StreamCapture capture(space.cuda_stream());  // aborted when it goes out of scope
      refuse(LaunchContext<Space>(space));
    } else
#endif
    {
      HostGraph g;
      refuse(LaunchContext<Space>::capture(space, g));
    }
  } else if constexpr (host_accessible_v<Space>) {
    others.emplace_back("graph", run_guarded("graph", [&] {
                          HostGraph g;
                          program.enqueue(LaunchContext<Space>::recording(space, g, true));
                          g.replay();
                        }));
    others.emplace_back("unconditional", run_guarded("unconditional", [&] {
                          exec::unconditional u;
                          HostGraph g;
                          program.enqueue(LaunchContext<Space>::recording(space, g, true));
                          g.replay();
                        }));
  }
#if TRACKGEN_EXEC_CUDA
  else if constexpr (cuda_graphs_v<Space>) {
    const auto captured = [&] {
      const LaunchContext<Space> own = LaunchContext<Space>(space).own_capture();
      capture_cuda_graph(space, [&] { program.enqueue(own); }).replay(space);
    };
    others.emplace_back("graph", run_guarded("graph", captured));
    others.emplace_back("unconditional", run_guarded("unconditional", [&] {
                          exec::unconditional u;
                          captured();
                        }));
  }
#endif
  others.emplace_back("unrolled", run_guarded("unrolled", [&] { program.enqueue(eager.unrolled()); }));

  for (const auto& [lowering, snap] : others) {
    if (snap.empty() || ref.empty()) continue;
    for (std::size_t b = 0; b < stage.writes.size(); ++b) {
      if (snap[b] != ref[b]) {
        fail(std::string("lowering '") + lowering + "' differs from eager in buffer '" + stage.writes[b].name +
             "' (absorbing contract or lowering equivalence violated)");
      }
    }
  }
  return report;
}

/// The same on the default instance of `Space`.
template <class Space>
StageCheckReport check_stage(const Stage<Space>& stage, const std::function<void()>& reset) {
  return check_stage(Space(), stage, reset);
}

}  // namespace trackgen

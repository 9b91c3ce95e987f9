// The execution layer on Kokkos::Cuda (built into trackgen_tests only in a Kokkos
// CUDA build with the CUDA executor): a GraphRunner self-graph captured on the
// instance's stream and replayed equals the eager run; skip_unless and every
// bounded_loop window become CUDA IF conditional nodes in a producer's own graph
// (where the driver supports them) and are recorded unconditionally in a
// caller's capture unless exec::conditional; recording into a caller's capture
// keeps the runner's owner alive through a CUDA user object; a HOST program is
// refused inside a capture before any work; TrackGenerator replay equals eager.
//
// A Kokkos CUDA build needs a GPU to initialize Kokkos at all, so these cases run
// only on a machine with one (as does the rest of trackgen_tests there).
#include "exec_support.hpp"
#include "support.hpp"
#include "test_pipeline_support.hpp"

#include <trackgen/exec/check_stage.hpp>
#include <trackgen/trackgen.hpp>

#include <chrono>
#include <memory>
#include <thread>

namespace trackgen {
namespace {

namespace tt = trackgen::test;

using Space = Kokkos::Cuda;
using IV = DView<std::int32_t, Space>;

void add_value(const LaunchContext<Space>& ctx, const IV& x, int v) { tt::add_value(ctx, x, v); }
void reset_saturate(const IV& x, const IV& cap) { tt::reset_saturate<Space>(x, cap); }
Stage<Space> saturate_stage(IV x, IV cap, IV active, int iters) { return tt::saturate_stage<Space>(x, cap, active, iters); }

/// Top-level conditional nodes of a captured graph.
std::size_t conditional_nodes(const CudaGraph& g) { return g.graph().node_count(cudaGraphNodeTypeConditional); }

/// What a graph holds per conditional site: 1 where the driver supports
/// conditional nodes, else 0 (the body is recorded unconditionally).
std::size_t per_site() { return cuda_exec::conditional_nodes_supported() ? 1 : 0; }

TrackGenConfig small_config(const std::string& generator, int envs) {
  TrackGenConfig c;
  c.generator = generator;
  c.num_envs = envs;
  return c;
}

}  // namespace

TEST_CASE("Kokkos::Cuda: a GraphRunner self-graph replays bitwise like the eager run", "[exec][cuda]") {
  const cuda_exec::Stream stream;
  const Space space(stream.get());
  const LaunchContext<Space> ctx(space);
  const int n = 64, iters = 20;
  IV x("x", n), cap("cap", n), active("active", 1);
  Program<Space> p("saturate");
  p.add(saturate_stage(x, cap, active, iters));

  reset_saturate(x, cap);
  GraphRunner<Space> eager("eager");
  eager.run(p, ctx, {Policy::eager, std::nullopt, true});
  const auto ref = tt::to_vector(x);
  for (int i = 0; i < n; ++i) CHECK(ref[i] == i % 5);
  CHECK(eager.graph_for() == nullptr);

  GraphRunner<Space> r("self");
  r.prepare(p, ctx);
  reset_saturate(x, cap);
  r.run(p, ctx, {Policy::automatic, std::nullopt, true});  // captures, then replays
  REQUIRE(r.graph_for() != nullptr);
  CHECK(conditional_nodes(*r.graph_for()) == per_site() * iters / 2);  // one per bounded_loop window
  CHECK(tt::to_vector(x) == ref);
  reset_saturate(x, cap);
  r.run(p, ctx, {Policy::automatic, std::nullopt, true});  // replays
  CHECK(tt::to_vector(x) == ref);
  CHECK(r.graph_keys().size() == 1);

  // Inside exec::unconditional the self-graph gets no conditional node, same bytes.
  GraphRunner<Space> u("unconditional");
  u.prepare(p, ctx);
  reset_saturate(x, cap);
  {
    exec::unconditional scope;
    u.run(p, ctx, {Policy::automatic, std::nullopt, true});
  }
  REQUIRE(u.graph_for() != nullptr);
  CHECK(conditional_nodes(*u.graph_for()) == 0);
  CHECK(tt::to_vector(x) == ref);
}

TEST_CASE("Kokkos::Cuda: skip_unless is a conditional node in an own capture, unconditional elsewhere",
          "[exec][cuda]") {
  const cuda_exec::Stream stream;
  const Space space(stream.get());
  const LaunchContext<Space> eager(space);
  IV x("x", 4), flag("flag", 1);
  auto body = [&](const LaunchContext<Space>& c) { add_value(c, x, 1); };

  CHECK_FALSE(eager.capturing());
  CHECK_FALSE(eager.skip_unless(flag, body));  // eager on a device: runs (never a host read)
  eager.fence();
  CHECK(tt::to_vector(x)[0] == 1);

  bool conditional = false;
  const auto own = capture_cuda_graph(space, [&] {
    CHECK(eager.capturing());
    conditional = eager.own_capture().skip_unless(flag, body);
  });
  CHECK(conditional == cuda_exec::conditional_nodes_supported());
  CHECK(conditional_nodes(own) == per_site());
  if (conditional) {
    own.replay(space);  // flag == 0: skipped at replay time
    space.fence();
    CHECK(tt::to_vector(x)[0] == 1);
  }
  Kokkos::deep_copy(flag, 1);
  own.replay(space);
  space.fence();
  CHECK(tt::to_vector(x)[0] == (conditional ? 2 : 3));

  // A caller's capture (a plain context on the capturing stream): conditional
  // nodes only inside exec::conditional; never inside exec::unconditional.
  const auto plain = capture_cuda_graph(space, [&] { CHECK_FALSE(eager.skip_unless(flag, body)); });
  CHECK(conditional_nodes(plain) == 0);
  const auto opted = capture_cuda_graph(space, [&] {
    exec::conditional scope;
    eager.skip_unless(flag, body);
  });
  CHECK(conditional_nodes(opted) == per_site());
  const auto off = capture_cuda_graph(space, [&] {
    exec::unconditional scope;
    CHECK_FALSE(eager.own_capture().skip_unless(flag, body));
  });
  CHECK(conditional_nodes(off) == 0);

  // No host sync while capturing.
  CHECK_THROWS_AS(capture_cuda_graph(space, [&] { eager.fence(); }), CaptureError);

  IV bad("bad", 2);
  CHECK_THROWS_AS(eager.skip_unless(bad, body), ConfigError);
}

TEST_CASE("Kokkos::Cuda: recording into a caller's capture, owners, and HOST refusal", "[exec][cuda]") {
  const cuda_exec::Stream stream;
  const Space space(stream.get());
  const LaunchContext<Space> ctx(space);
  IV x("x", 16);
  Program<Space> p("adder");
  Stage<Space> s;
  s.id = "add";
  s.writes = {buffer("x", x)};
  s.enqueue = [&](const LaunchContext<Space>& c) { add_value(c, x, 2); };
  p.add(s);

  GraphRunner<Space> r("adder");
  auto owner = std::make_shared<int>(7);
  const std::weak_ptr<int> watch = owner;
  r.set_owner(owner);
  {
    auto caller = capture_cuda_graph(space, [&] { r.run(p, ctx); });
    space.fence();
    CHECK(tt::to_vector(x)[0] == 0);  // recorded, not run
    CHECK(r.graph_for() == nullptr);  // no self-graph: the caller's capture got the work
    owner.reset();                    // the caller's graph keeps the owner alive
    CHECK_FALSE(watch.expired());
    caller.replay(space);
    caller.replay(space);
    space.fence();
    CHECK(tt::to_vector(x)[0] == 4);
  }
  // The graph is gone: CUDA queues the owner (on its own thread, asynchronously)
  // and a call into the execution layer outside a capture releases it.
  for (int i = 0; i < 400 && !watch.expired(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    r.run(p, ctx, {Policy::eager, std::nullopt, true});
  }
  CHECK(watch.expired());
  const int after_release = tt::to_vector(x)[0];
  CHECK(after_release >= 6);

  // A HOST stage: refused inside a capture before any work, segmented outside.
  Program<Space> h("mixed");
  h.add(s);
  h.add(tt::host_sync_stage<Space>());
  GraphRunner<Space> hr("mixed");
  {
    const cuda_exec::StreamCapture capture(space.cuda_stream());
    CHECK_THROWS_AS(hr.run(h, ctx), NotCapturableError);
  }
  space.fence();
  CHECK(tt::to_vector(x)[0] == after_release);
  hr.prepare(h, ctx);
  hr.run(h, ctx, {Policy::automatic, std::nullopt, true});
  const auto segs = hr.segment_graphs_for();
  REQUIRE(segs.size() == 2);
  CHECK(segs[0] != nullptr);
  CHECK(segs[1] == nullptr);
  CHECK(tt::to_vector(x)[0] == after_release + 4);

  // check_stage on CUDA: the captured lowerings agree with the eager run.
  IV y("y", 32), cap("cap", 32), active("active", 1);
  const auto report = check_stage<Space>(space, saturate_stage(y, cap, active, 12), [&] { reset_saturate(y, cap); });
  CHECK(report.ok);
  CHECK(report.problems.empty());
}

TEST_CASE("Kokkos::Cuda: TrackGenerator self-graph and caller capture equal the eager run", "[exec][cuda][pipeline]") {
  const cuda_exec::Stream stream;
  const Space space(stream.get());
  const auto cfg = small_config("bezier", 8);
  TrackGenerator<Space> eager(space, cfg, SeedState<Space>(space, cfg.num_envs, 5, SeedExpansion::arange));
  eager.set_policy(Policy::eager);
  const auto ref = tt::HostTrack::from(eager.generate());

  TrackGenerator<Space> graph(space, cfg, SeedState<Space>(space, cfg.num_envs, 5, SeedExpansion::arange));
  graph.generate();
  CHECK(tt::HostTrack::from(graph.generate()).bitwise_equal(ref));
  REQUIRE(graph.runner().graph_for() != nullptr);
  CHECK(graph.runner().graph_for()->graph().node_count() > 5);

  auto user = std::make_shared<TrackGenerator<Space>>(space, cfg, SeedState<Space>(space, cfg.num_envs, 5, SeedExpansion::arange));
  const auto caller = capture_cuda_graph(space, [&] {
    user->generate(LaunchContext<Space>(space));
    exec::retain(space, user);  // the graph keeps the producer alive
  });
  const auto* track = &user->track();
  const std::weak_ptr<TrackGenerator<Space>> watch = user;
  user.reset();
  CHECK_FALSE(watch.expired());
  caller.replay(space);
  space.fence();
  CHECK(tt::HostTrack::from(*track).bitwise_equal(ref));
}

}  // namespace trackgen

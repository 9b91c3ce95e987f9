// The execution layer: LaunchContext, HostGraph, skip_unless, bounded_loop
// lowerings, HostOps, Program, GraphRunner policies and check_stage.
#include "exec_support.hpp"
#include "support.hpp"

#include <trackgen/exec/check_stage.hpp>
#include <trackgen/exec/ops.hpp>

#include <atomic>

using namespace trackgen;

namespace {

using test::add_value;
using test::IV;
using test::reset_saturate;
using test::saturate_stage;
using test::saturate_step;

/// A non-absorbing iteration: x[i] += 1 regardless of active.
template <class Space>
void leaky_step(const LaunchContext<Space>& ctx, const IV<Space>& x, const IV<Space>& active) {
  ctx.for_each("test::leaky", x.extent(0), KOKKOS_LAMBDA(const int i) { x(i) += 1; });
  ctx.fill(active, std::int32_t(0));
}

}  // namespace

TEMPLATE_TEST_CASE("LaunchContext records into a HostGraph and replays", "[exec]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  IV<Space> x("x", 8);
  HostGraph g;
  const auto rec = LaunchContext<Space>::recording(Space(), g, true);
  REQUIRE(rec.capturing());
  add_value(rec, x, 3);
  rec.fill(IV<Space>(x), std::int32_t(7));
  add_value(rec, x, 1);
  CHECK(g.launch_nodes() == 3);
  CHECK(test::to_vector(x) == std::vector<std::int32_t>(8, 0));  // nothing ran yet
  g.replay();
  CHECK(test::to_vector(x) == std::vector<std::int32_t>(8, 8));
  g.replay();
  CHECK(test::to_vector(x) == std::vector<std::int32_t>(8, 8));
  CHECK_THROWS_AS(rec.fence(), CaptureError);
}

TEMPLATE_TEST_CASE("as_one_node runs its work now, or as one node at every replay", "[exec]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  IV<Space> x("x", 8);
  const LaunchContext<Space> eager(Space{});
  int calls = 0;
  auto body = [&](const LaunchContext<Space>& c) {
    ++calls;
    CHECK_FALSE(c.capturing());  // the work inside runs at once
    add_value(c, x, 2);
    add_value(c, x, 1);
  };
  eager.as_one_node(body);
  CHECK(calls == 1);
  CHECK(test::to_vector(x) == std::vector<std::int32_t>(8, 3));
  HostGraph g;
  const auto rec = LaunchContext<Space>::recording(Space(), g, true);
  rec.as_one_node(body);
  CHECK(calls == 1);  // recorded, not run
  CHECK(g.launch_nodes() == 1);
  CHECK(test::to_vector(x) == std::vector<std::int32_t>(8, 3));
  g.replay();
  g.replay();
  CHECK(calls == 3);
  CHECK(test::to_vector(x) == std::vector<std::int32_t>(8, 9));
}

TEMPLATE_TEST_CASE("skip_unless: host poll, conditional node, unconditional", "[exec]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  IV<Space> x("x", 4), flag("flag", 1);
  const LaunchContext<Space> eager;
  auto body = [&](const LaunchContext<Space>& c) { add_value(c, x, 1); };

  CHECK(eager.skip_unless(flag, body));  // host poll: skipped
  CHECK(test::to_vector(x)[0] == 0);
  Kokkos::deep_copy(flag, 1);
  eager.skip_unless(flag, body);
  CHECK(test::to_vector(x)[0] == 1);

  HostGraph g;
  CHECK(LaunchContext<Space>::recording(Space(), g, true).skip_unless(flag, body));
  CHECK(g.conditional_nodes() == 1);
  Kokkos::deep_copy(flag, 0);
  g.replay();  // the flag is read at replay time
  CHECK(test::to_vector(x)[0] == 1);
  Kokkos::deep_copy(flag, 1);
  g.replay();
  CHECK(test::to_vector(x)[0] == 2);

  HostGraph u;
  {
    exec::unconditional scope;
    CHECK_FALSE(LaunchContext<Space>::recording(Space(), u, true).skip_unless(flag, body));
  }
  CHECK(u.conditional_nodes() == 0);
  CHECK(u.launch_nodes() == 1);

  // A caller's capture records conditional nodes only inside exec::conditional.
  HostGraph c1, c2;
  LaunchContext<Space>::capture(c1).skip_unless(flag, body);
  {
    exec::conditional scope;
    LaunchContext<Space>::capture(c2).skip_unless(flag, body);
  }
  CHECK(c1.conditional_nodes() == 0);
  CHECK(c2.conditional_nodes() == 1);

  IV<Space> bad("bad", 2);
  CHECK_THROWS_AS(eager.skip_unless(bad, body), ConfigError);
}

TEMPLATE_TEST_CASE("bounded_loop: the three lowerings agree bitwise on an absorbing body", "[exec]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  const int n = 64, iters = 20;
  IV<Space> x("x", n), cap("cap", n), active("active", 1);
  const auto stage = saturate_stage<Space>(x, cap, active, iters, CaptureClass::BOUNDED);
  Program<Space> p("saturate");
  p.add(stage);

  std::vector<std::vector<std::int32_t>> results;
  // (a) eager host poll: stops after the window where active became 0.
  reset_saturate<Space>(x, cap);
  p.enqueue(LaunchContext<Space>());
  results.push_back(test::to_vector(x));
  // (b) one conditional node per window.
  reset_saturate<Space>(x, cap);
  HostGraph g;
  p.enqueue(LaunchContext<Space>::recording(Space(), g, true));
  CHECK(g.conditional_nodes() == iters / 2);
  g.replay();
  results.push_back(test::to_vector(x));
  // (c) every window unconditionally.
  reset_saturate<Space>(x, cap);
  HostGraph u;
  {
    exec::unconditional scope;
    p.enqueue(LaunchContext<Space>::recording(Space(), u, true));
  }
  CHECK(u.conditional_nodes() == 0);
  u.replay();
  results.push_back(test::to_vector(x));

  for (int i = 0; i < n; ++i) CHECK(results[0][i] == i % 5);
  CHECK(results[1] == results[0]);
  CHECK(results[2] == results[0]);
}

TEMPLATE_TEST_CASE("bounded_loop and host() enforce the declared capture class", "[exec]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  IV<Space> x("x", 4), cap("cap", 4), active("active", 1);
  Program<Space> p("wrong");
  p.add(saturate_stage<Space>(x, cap, active, 4, CaptureClass::STATIC));
  try {
    p.enqueue(LaunchContext<Space>());
    FAIL("expected ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("saturate") != std::string::npos);
  }

  CHECK_THROWS_AS(LaunchContext<Space>().host(), CaptureError);
  Program<Space> q("host");
  Stage<Space> s;
  s.id = "reader";
  s.capture = CaptureClass::STATIC;
  s.enqueue = [](const LaunchContext<Space>& c) { (void)c.host(); };
  q.add(s);
  CHECK_THROWS_AS(q.enqueue(LaunchContext<Space>()), ConfigError);

  Program<Space> h("host-ok");
  std::int32_t seen = -1;
  Kokkos::deep_copy(x, 5);
  Stage<Space> hs;
  hs.id = "reader";
  hs.capture = CaptureClass::HOST;
  hs.enqueue = [&](const LaunchContext<Space>& c) { seen = c.host().read_i32(x, 2); };
  h.add(hs);
  h.enqueue(LaunchContext<Space>());
  CHECK(seen == 5);
  HostGraph g;
  CHECK_THROWS_AS(h.enqueue(LaunchContext<Space>::capture(g)), NotCapturableError);
}

TEMPLATE_TEST_CASE("GraphRunner policies: eager, self-graph, record, segmented, keys", "[exec]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  IV<Space> x("x", 16);
  std::atomic<int> enqueues{0};
  Program<Space> p("adder");
  Stage<Space> s;
  s.id = "add";
  s.writes = {buffer("x", x)};
  s.enqueue = [&](const LaunchContext<Space>& c) {
    ++enqueues;
    add_value(c, x, 2);
  };
  p.add(s);

  GraphRunner<Space> r("adder");
  const LaunchContext<Space> ctx;
  r.run(p, ctx, {Policy::eager, std::nullopt});
  CHECK(enqueues == 1);
  CHECK(r.graph_for() == nullptr);
  r.run(p, ctx);  // records the self-graph, then replays it
  r.run(p, ctx);  // replays
  CHECK(enqueues == 2);
  REQUIRE(r.graph_for() != nullptr);
  CHECK(test::to_vector(x)[0] == 6);

  // Record into a caller's capture: nothing runs until the caller replays.
  HostGraph caller;
  r.run(p, LaunchContext<Space>::capture(caller));
  CHECK(test::to_vector(x)[0] == 6);
  caller.replay();
  CHECK(test::to_vector(x)[0] == 8);

  // Keys need prepare(); at most 16 keyed graphs, then eager.
  CHECK_THROWS_AS(r.run(p, ctx, {Policy::automatic, GraphKey{1}}), CaptureError);
  r.prepare(p, ctx);
  for (std::uintptr_t k = 0; k < 20; ++k) r.run(p, ctx, {Policy::automatic, GraphKey{k}});
  CHECK(r.graph_keys().size() == 1 + GraphRunner<Space>::max_keyed_graphs);

  // A program with a HOST stage: refused inside a capture before any work; segmented otherwise.
  Program<Space> h("mixed");
  h.add(s);
  h.add(test::host_sync_stage<Space>());
  Stage<Space> s2 = s;
  s2.id = "add-again";
  h.add(s2);
  CHECK_FALSE(h.capturable());
  GraphRunner<Space> hr("mixed");
  HostGraph refused;
  const auto before = test::to_vector(x);
  try {
    hr.run(h, LaunchContext<Space>::capture(refused));
    FAIL("expected NotCapturableError");
  } catch (const NotCapturableError& e) {
    CHECK(e.stage_ids() == std::vector<std::string>{"host-step"});
    CHECK(std::string(e.what()).find("host-step") != std::string::npos);
  }
  CHECK(refused.size() == 0);
  CHECK(test::to_vector(x) == before);
  hr.run(h, ctx);
  const auto segs = hr.segment_graphs_for();
  REQUIRE(segs.size() == 3);
  CHECK(segs[0] != nullptr);
  CHECK(segs[1] == nullptr);
  CHECK(segs[2] != nullptr);
  CHECK(test::to_vector(x)[0] == before[0] + 4);
}

TEMPLATE_TEST_CASE("check_stage accepts an absorbing stage and flags a leaky one", "[exec]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  IV<Space> x("x", 32), cap("cap", 32), active("active", 1);
  const auto good = check_stage<Space>(saturate_stage<Space>(x, cap, active, 12, CaptureClass::BOUNDED),
                                       [&] { reset_saturate<Space>(x, cap); });
  CHECK(good.ok);
  CHECK(good.problems.empty());

  Stage<Space> leaky;
  leaky.id = "leaky";
  leaky.capture = CaptureClass::BOUNDED;
  leaky.writes = {buffer("x", x)};
  leaky.enqueue = [=](const LaunchContext<Space>& ctx) {
    ctx.fill(active, std::int32_t(0));
    ctx.bounded_loop(6, [=](const LaunchContext<Space>& c, int) { leaky_step(c, x, active); }, active, 1, 1);
  };
  const auto bad = check_stage<Space>(leaky, [&] { Kokkos::deep_copy(x, 0); });
  CHECK_FALSE(bad.ok);
  REQUIRE_FALSE(bad.problems.empty());
  CHECK(bad.problems[0].find("'x'") != std::string::npos);
}

TEMPLATE_TEST_CASE("any_set writes the mask's any flag on the device", "[exec]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  IV<Space> mask("mask", 100), flag("flag", 1);
  const LaunchContext<Space> ctx;
  ops::any_set(ctx, mask, flag);
  CHECK(test::to_vector(flag)[0] == 0);
  Kokkos::deep_copy(Kokkos::subview(mask, 37), 1);
  ops::any_set(ctx, mask, flag);
  CHECK(test::to_vector(flag)[0] == 1);
}

TEMPLATE_TEST_CASE("scope() makes a context ambient for for_call()", "[exec]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  HostGraph g;
  const auto rec = LaunchContext<Space>::capture(g);
  CHECK_FALSE(LaunchContext<Space>::for_call().capturing());
  {
    auto guard = rec.scope();
    CHECK(LaunchContext<Space>::for_call().capturing());
    const Space explicit_space;
    CHECK_FALSE(LaunchContext<Space>::for_call(&explicit_space).capturing());
  }
  CHECK_FALSE(LaunchContext<Space>::for_call().capturing());
}

// TrackGenerator through the execution layer: policies, recording into a
// caller's capture, HOST generators, masked regeneration with epochs, and two
// producers on two threads.
#include "field_support.hpp"
#include "masked_lane.hpp"
#include "test_pipeline_support.hpp"

#include <trackgen/trackgen.hpp>

#include <cstdint>
#include <map>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

TrackGenConfig small_config(const std::string& generator, int envs = 12) {
  TrackGenConfig c;
  c.generator = generator;
  c.num_envs = envs;
  return c;
}

/// The built-in generators cheap enough to run several times per test.
std::vector<std::string> fast_generators() {
  std::vector<std::string> names;
  for (const auto& n : builtin_generator_names()) {
    if (n != "repulsive") names.push_back(n);
  }
  return names;
}

/// Whether env ea of `a` and env eb of `b` hold the same bits in every field
/// of the Track's list.
bool env_equal(const Track<Kokkos::HostSpace>& a, int ea, const Track<Kokkos::HostSpace>& b, int eb) {
  const auto differ = tt::differing_fields(a, ea, b, eb, 1);
  for (const auto& name : differ) UNSCOPED_INFO("field " << name << " differs");
  return differ.empty();
}

/// Whether two host Tracks hold the same bits in every field.
bool same_track(const Track<Kokkos::HostSpace>& a, const Track<Kokkos::HostSpace>& b) {
  return tt::differing_fields(a, b).empty();
}

/// A user generator with a HOST stage: it reads the seeds on the host and
/// writes circles whose radius depends on the seed.
template <class Space>
class HostCircleGenerator : public Generator<Space> {
 public:
  using typename Generator<Space>::IntView;
  using typename Generator<Space>::Vec2View;
  explicit HostCircleGenerator(const TrackGenConfig& c)
      : n_(c.num_points), seeds_h_("seeds_h", c.num_envs), pts_h_("pts_h", std::size_t(c.num_envs) * c.num_points) {}
  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out,
                const IntView& valid) override {
    auto h = ctx.host();
    h.readback(seeds, seeds_h_);
    for (std::size_t e = 0; e < seeds_h_.extent(0); ++e) {
      const float r = 0.5f + 0.01f * float(seeds_h_(e) % 7);
      for (int i = 0; i < n_; ++i) {
        const float a = 2.0f * geom::pi_f * float(i) / float(n_);
        pts_h_(e * n_ + i) = Vec2f{r * std::cos(a), r * std::sin(a)};
      }
    }
    h.upload(out, pts_h_);
    ctx.fill(valid, std::int32_t(1));
  }

 private:
  int n_;
  Kokkos::View<std::int32_t*, Kokkos::HostSpace> seeds_h_;
  Kokkos::View<Vec2f*, Kokkos::HostSpace> pts_h_;
};

template <class Space>
void register_host_circle() {
  static bool done = false;
  if (done) return;
  GeneratorSpec<Space> spec;
  spec.name = "test-host-circle";
  spec.capture = CaptureClass::HOST;
  spec.make = [](const Space&, const TrackGenConfig& c) { return std::make_unique<HostCircleGenerator<Space>>(c); };
  register_generator<Space>(spec);
  done = true;
}

}  // namespace

TEMPLATE_TEST_CASE("TrackGenerator: graph replay equals the eager run bitwise for every generator", "[exec][pipeline]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  for (const auto& name : fast_generators()) {
    INFO("generator " << name);
    const auto cfg = small_config(name);
    TrackGenerator<Space> eager(cfg, SeedState<Space>(cfg.num_envs, 5));
    eager.set_policy(Policy::eager);
    const auto ref = tt::HostTrack::from(eager.generate());
    CHECK(eager.runner().graph_for() == nullptr);

    TrackGenerator<Space> graph(cfg, SeedState<Space>(cfg.num_envs, 5));
    graph.generate();
    const auto g1 = tt::HostTrack::from(graph.generate());
    REQUIRE(graph.runner().graph_for() != nullptr);
    CHECK(graph.runner().graph_for()->launch_nodes() > 5);
    CHECK(g1.bitwise_equal(ref));
  }
}

TEMPLATE_TEST_CASE("TrackGenerator: recording into a caller's capture reads live seeds at replay", "[exec][pipeline]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  const auto cfg = small_config("bezier", 8);
  DView<std::int32_t, Space> seeds("seeds", cfg.num_envs);
  Kokkos::deep_copy(seeds, 3);
  TrackGenerator<Space> tg(cfg, seeds);
  HostGraph caller;
  tg.generate(LaunchContext<Space>::capture(caller));
  CHECK(caller.launch_nodes() > 5);

  Kokkos::deep_copy(seeds, 42);  // the graph must read the new seeds when replayed
  caller.replay();
  const auto replayed = tt::HostTrack::from(tg.track());

  DView<std::int32_t, Space> seeds42("seeds42", cfg.num_envs);
  Kokkos::deep_copy(seeds42, 42);
  TrackGenerator<Space> fresh(cfg, seeds42);
  CHECK(replayed.bitwise_equal(tt::HostTrack::from(fresh.generate())));
}

TEMPLATE_TEST_CASE("TrackGenerator: rebinding the seeds re-records the self-graph and warns a caller's graph",
                   "[exec][pipeline]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  const auto cfg = small_config("polar", 8);
  DView<std::int32_t, Space> a("a", cfg.num_envs), b("b", cfg.num_envs);
  Kokkos::deep_copy(a, 5);
  Kokkos::deep_copy(b, 9);
  const auto from = [&](const DView<std::int32_t, Space>& s) {
    TrackGenerator<Space> fresh(cfg, s);
    return tt::HostTrack::from(fresh.generate());
  };
  const auto ref_a = from(a), ref_b = from(b);
  std::vector<std::string> warnings;
  const std::string previous_level = logging::level();
  logging::set_level("warn");  // the suite may run at a quieter level
  const auto previous = logging::set_sink([&](const std::string& level, const std::string& msg) {
    if (level == "warning" || level == "warn") warnings.push_back(msg);
  });

  TrackGenerator<Space> tg(cfg, a);
  CHECK(tt::HostTrack::from(tg.generate()).bitwise_equal(ref_a));  // records the self-graph on a
  tg.rebind_seeds(b);  // no caller's graph recorded anything: silent
  CHECK(warnings.empty());
  CHECK(tt::HostTrack::from(tg.generate()).bitwise_equal(ref_b));  // the self-graph reads b

  HostGraph caller;
  tg.generate(LaunchContext<Space>::capture(caller));
  tg.rebind_seeds(b);  // the same View: silent
  CHECK(warnings.empty());
  tg.rebind_seeds(a);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("rebound") != std::string::npos);
  CHECK(tt::HostTrack::from(tg.generate()).bitwise_equal(ref_a));
  caller.replay();  // the caller's graph still reads b, as warned
  CHECK(tt::HostTrack::from(tg.track()).bitwise_equal(ref_b));

  // Through SeedState::rebind directly: noticed at the next call.
  tg.seeds().rebind(b);
  CHECK(tt::HostTrack::from(tg.generate()).bitwise_equal(ref_b));
  CHECK(warnings.size() == 1);
  logging::set_sink(previous);
  logging::set_level(previous_level);

  CHECK_THROWS_AS(tg.rebind_seeds(DView<std::int32_t, Space>("short", 3)), ConfigError);
  TrackGenerator<Space> owned(cfg, SeedState<Space>(cfg.num_envs, 0));
  CHECK_THROWS_AS(owned.rebind_seeds(b), ConfigError);
}

namespace {

std::vector<std::string> g_region_events;  // "+name" at a push, "-" at a pop
void on_push_region(const char* name) { g_region_events.push_back(std::string("+") + name); }
void on_pop_region() { g_region_events.push_back("-"); }

}  // namespace

TEMPLATE_TEST_CASE("TrackGenerator: stage profiling regions fire where the work runs, graph replays included",
                   "[exec][pipeline]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  namespace kte = Kokkos::Tools::Experimental;
  const std::vector<std::string> stages{"TrackGen::generators::bezier", "TrackGen::pipeline::resample_constant_spacing",
                                        "TrackGen::pipeline::relax_setup", "TrackGen::pipeline::relax_solve",
                                        "TrackGen::pipeline::inflate"};
  for (const Policy policy : {Policy::automatic, Policy::eager}) {
    INFO("policy " << (policy == Policy::eager ? "eager" : "automatic"));
    TrackGenerator<Space> tg(small_config("bezier", 6), SeedState<Space>(6, 0));
    tg.set_policy(policy);
    const auto saved = kte::get_callbacks();
    g_region_events.clear();
    kte::set_push_region_callback(on_push_region);
    kte::set_pop_region_callback(on_pop_region);
    tg.generate();  // automatic: records the self-graph (no region), then replays it
    tg.generate();
    kte::set_callbacks(saved);
    // Each stage region once per call, inside the call's region, balanced.
    int depth = 0, calls = 0;
    std::map<std::string, int> seen;
    for (const auto& ev : g_region_events) {
      if (ev == "-") {
        --depth;
        CHECK(depth >= 0);
        continue;
      }
      const std::string name = ev.substr(1);
      ++seen[name];
      if (name == "TrackGen::TrackGenerator::generate") {
        CHECK(depth == 0);
        ++calls;
      } else {
        CHECK(depth >= 1);
      }
      ++depth;
    }
    CHECK(depth == 0);
    CHECK(calls == 2);
    for (const auto& st : stages) {
      INFO(st);
      CHECK(seen[st] == 2);
    }
  }
}

TEMPLATE_TEST_CASE("TrackGenerator: a HOST generator refuses a caller's capture and runs segmented",
                   "[exec][pipeline]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  register_host_circle<Space>();
  const auto cfg = small_config("test-host-circle", 6);
  TrackGenerator<Space> tg(cfg, SeedState<Space>(cfg.num_envs, 0));
  CHECK_FALSE(tg.capturable());
  const auto before = tt::HostTrack::from(tg.track());
  HostGraph caller;
  try {
    tg.generate(LaunchContext<Space>::capture(caller));
    FAIL("expected NotCapturableError");
  } catch (const NotCapturableError& e) {
    CHECK(e.stage_ids() == std::vector<std::string>{"generate:test-host-circle"});
  }
  CHECK(caller.size() == 0);
  CHECK(tt::HostTrack::from(tg.track()).bitwise_equal(before));

  const auto& t = tg.generate();  // segmented: the seeds stage from its graph, the HOST stage eagerly
  const auto segs = tg.runner().segment_graphs_for();
  REQUIRE(segs.size() == 2);
  CHECK(segs[0] != nullptr);
  CHECK(segs[1] == nullptr);
  const auto h = tt::HostTrack::from(t);
  for (int e = 0; e < cfg.num_envs; ++e) CHECK(h.valid[e] == 1);
}

TEMPLATE_TEST_CASE("TrackGenerator: masked regeneration keeps unmasked envs and matches effective seeds",
                   "[exec][pipeline]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const Policy policy : {Policy::automatic, Policy::eager}) {
    const auto cfg = small_config("bezier", 10);
    TrackGenerator<Space> tg(cfg, SeedState<Space>(cfg.num_envs, 100));
    tg.set_policy(policy);
    const auto before = tg.generate().to_host();

    const std::vector<std::int32_t> mask_h{0, 1, 0, 0, 1, 0, 0, 0, 0, 1};
    const auto mask = tt::to_device<Space>(mask_h, "mask");
    const DView<std::int32_t, Space> zero("zero", cfg.num_envs);

    // An all-zero mask changes nothing (the body is skipped).
    CHECK(same_track(tg.generate(zero, true).to_host(), before));

    tg.generate(mask, /*advance=*/true);
    const auto after1 = tg.generate(mask, true).to_host();  // epochs now 2 for masked envs
    const auto epochs = tt::to_vector(tg.seeds().epoch());
    for (int e = 0; e < cfg.num_envs; ++e) CHECK(epochs[e] == 2 * mask_h[e]);

    // Regenerated envs equal a fresh generation at effective_seed(seed, epoch).
    std::vector<std::int32_t> eff(cfg.num_envs);
    for (int e = 0; e < cfg.num_envs; ++e) eff[e] = effective_seed(100 + e, epochs[e]);
    TrackGenerator<Space> fresh(cfg, tt::to_device<Space>(eff, "eff"));
    const auto ref = fresh.generate().to_host();
    for (int e = 0; e < cfg.num_envs; ++e) {
      INFO("env " << e);
      CHECK(env_equal(after1, e, mask_h[e] ? ref : before, e));
    }
    // A full generate() afterwards uses the same (seed, epoch) pairs.
    CHECK(same_track(tg.generate().to_host(), ref));
  }
}

TEST_CASE("TrackGenerator: two producers on two threads", "[exec][pipeline]") {
  using Space = Kokkos::DefaultHostExecutionSpace;
  const auto cfg = small_config("polar", 16);
  TrackGenerator<Space> a(cfg, SeedState<Space>(cfg.num_envs, 1)), b(cfg, SeedState<Space>(cfg.num_envs, 2));
  const auto ref_a = tt::HostTrack::from(a.generate());
  const auto ref_b = tt::HostTrack::from(b.generate());
  std::thread ta([&] {
    for (int i = 0; i < 5; ++i) a.generate();
  });
  std::thread tb([&] {
    for (int i = 0; i < 5; ++i) b.generate();
  });
  ta.join();
  tb.join();
  CHECK(tt::HostTrack::from(a.track()).bitwise_equal(ref_a));
  CHECK(tt::HostTrack::from(b.track()).bitwise_equal(ref_b));
}

TEMPLATE_TEST_CASE("TrackGenerator: masked regeneration in lane rounds equals a fresh generation",
                   "[exec][pipeline]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  const auto cfg = small_config("bezier", 72);
  TrackGenerator<Space> tg(cfg, SeedState<Space>(cfg.num_envs, 7));
  REQUIRE(tg.masked_lane_envs() < cfg.num_envs);  // the lane path, in several rounds below
  const auto before = tg.generate().to_host();

  // 2 rounds (10 envs) and 9 rounds of 8 (70 envs: on a device, past its 8 rounds, the whole-batch
  // fallback), under both policies.
  for (const Policy policy : {Policy::automatic, Policy::eager}) {
    INFO("policy " << (policy == Policy::eager ? "eager" : "automatic"));
    tg.set_policy(policy);
    for (const int stride : {7, 1}) {
      std::vector<std::int32_t> mask_h(cfg.num_envs, 0);
      for (int e = 2; e < cfg.num_envs; e += stride) mask_h[e] = 1;
      const auto mask = tt::to_device<Space>(mask_h, "mask");
      const auto prev = tg.track().to_host();
      const auto after = tg.generate(mask, /*advance=*/true).to_host();
      const auto epochs = tt::to_vector(tg.seeds().epoch());
      std::vector<std::int32_t> eff(cfg.num_envs);
      for (int e = 0; e < cfg.num_envs; ++e) eff[e] = effective_seed(7 + e, epochs[e]);
      TrackGenerator<Space> fresh(cfg, tt::to_device<Space>(eff, "eff"));
      const auto ref = fresh.generate().to_host();
      const auto cs_ref = tt::to_vector(fresh.pre_relax_centerline()), cs = tt::to_vector(tg.pre_relax_centerline());
      const auto gen_ref = tt::to_vector(fresh.generator_centerline()), gen = tt::to_vector(tg.generator_centerline());
      const auto rows = [](const std::vector<Vec2f>& v, int e, int n) {
        return std::vector<Vec2f>(v.begin() + std::size_t(e) * n, v.begin() + std::size_t(e + 1) * n);
      };
      for (int e = 0; e < cfg.num_envs; ++e) {
        INFO("env " << e);
        CHECK(env_equal(after, e, mask_h[e] ? ref : prev, e));
        if (mask_h[e]) {
          CHECK(tt::bitwise_equal(rows(cs, e, cfg.N_max), rows(cs_ref, e, cfg.N_max)));
          CHECK(tt::bitwise_equal(rows(gen, e, cfg.num_points), rows(gen_ref, e, cfg.num_points)));
        }
      }
    }
  }
  // An all-zero mask changes nothing; a full generate() reproduces the current (seed, epoch) pairs.
  const auto current = tg.track().to_host();
  CHECK(same_track(tg.generate(DView<std::int32_t, Space>("zero", cfg.num_envs), true).to_host(), current));
  CHECK(same_track(tg.generate().to_host(), current));
  CHECK_FALSE(same_track(current, before));
}

TEMPLATE_TEST_CASE("TrackGenerator: on a host space the lane's rounds hold the whole batch", "[exec][pipeline]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  // 8 envs per round up to 8192 envs, then E / 1024 rounded up: however many envs
  // a step masks, the rounds regenerate them and never the whole batch.
  for (const auto& [envs, lanes] : std::vector<std::pair<int, int>>{
           {9, 8}, {72, 8}, {8192, 8}, {8193, 9}, {65536, 64}, {65537, 65}, {1 << 20, 1024}}) {
    INFO("E = " << envs);
    CHECK(trackgen::detail::masked_lane_envs<Space>(envs) == lanes);
    CHECK(std::int64_t(lanes) * trackgen::detail::masked_lane_rounds<Space> >= envs);
  }
  CHECK(trackgen::detail::masked_lane_envs<Space>(8) == 8);  // one round's batch: regenerated whole
  const auto cfg = small_config("bezier", 72);
  CHECK(TrackGenerator<Space>(cfg, SeedState<Space>(cfg.num_envs, 7)).masked_lane_envs() == 8);
}

TEMPLATE_TEST_CASE("TrackGenerator: masked regeneration recorded into a caller's capture", "[exec][pipeline]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  const auto cfg = small_config("polar", 20);
  TrackGenerator<Space> tg(cfg, SeedState<Space>(cfg.num_envs, 3));
  TrackGenerator<Space> ref_gen(cfg, SeedState<Space>(cfg.num_envs, 3));
  std::vector<std::int32_t> mask_h(cfg.num_envs, 0);
  mask_h[5] = mask_h[11] = mask_h[19] = 1;
  const auto mask = tt::to_device<Space>(mask_h, "mask");
  // Recorded with conditional nodes (inside exec::conditional), and with every
  // round and the whole-batch fallback recorded unconditionally: the same bits.
  TrackGenerator<Space> unconditional(cfg, SeedState<Space>(cfg.num_envs, 3));
  HostGraph caller, every_round;
  {
    const exec::conditional allow;
    tg.generate(LaunchContext<Space>::capture(caller), mask, /*advance=*/true);
  }
  CHECK(caller.conditional_nodes() >= 2);
  {
    const exec::unconditional none;
    unconditional.generate(LaunchContext<Space>::capture(every_round), mask, /*advance=*/true);
  }
  CHECK(every_round.conditional_nodes() == 0);
  for (int i = 0; i < 2; ++i) {
    caller.replay();
    every_round.replay();
    ref_gen.generate(mask, true);
  }
  const auto ref = tt::HostTrack::from(ref_gen.track());
  CHECK(tt::HostTrack::from(tg.track()).bitwise_equal(ref));
  CHECK(tt::HostTrack::from(unconditional.track()).bitwise_equal(ref));
  CHECK(tt::bitwise_equal(tt::to_vector(tg.seeds().epoch()), tt::to_vector(ref_gen.seeds().epoch())));
}

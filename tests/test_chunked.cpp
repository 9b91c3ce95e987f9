// generate_chunked (trackgen/pipeline/chunked.hpp): a batch produced in chunks of
// envs equals the one-batch generation bit for bit, every Track field (NaN
// padding included), for balanced and uneven chunks, a chunk larger than the
// batch, and a batch whose last env seed is INT32_MAX (the last chunk's unused
// envs then pass it); base seeds that would wrap inside the batch are refused.
#include "test_pipeline_support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/pipeline/chunked.hpp>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

/// Appends rows [0, n) of `src` (rows of `row` entries) to `dst`.
template <class T>
void append_rows(std::vector<T>& dst, const std::vector<T>& src, std::size_t row, int n) {
  dst.insert(dst.end(), src.begin(), src.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(n)));
}

/// The chunks of a chunked generation, concatenated in env order, and the
/// envs of the batch per chunk.
template <class Space>
tt::HostTrack chunked_batch(const TrackGenConfig& c, std::int32_t k, int chunk, std::vector<int>& sizes) {
  tt::HostTrack all;
  all.n_max = c.N_max;
  int expected_first = 0;
  generate_chunked(Space(), c, k, chunk, [&](int first, int n, const TrackGenerator<Space>& gen) {
    CHECK(first == expected_first);
    CHECK(gen.track().num_envs() == chunk_size(c.num_envs, std::min(chunk, c.num_envs)));
    const tt::HostTrack h = tt::HostTrack::from(gen.track());
    const std::size_t N = static_cast<std::size_t>(c.N_max);
    append_rows(all.outer, h.outer, N, n);
    append_rows(all.center, h.center, N, n);
    append_rows(all.inner, h.inner, N, n);
    append_rows(all.tangent, h.tangent, N, n);
    append_rows(all.normal, h.normal, N, n);
    append_rows(all.arclen, h.arclen, N, n);
    append_rows(all.length, h.length, 1, n);
    append_rows(all.winding, h.winding, 1, n);
    append_rows(all.valid, h.valid, 1, n);
    append_rows(all.count, h.count, 1, n);
    append_rows(all.truncated, h.truncated, 1, n);
    append_rows(all.sep_overflow, h.sep_overflow, 1, n);
    append_rows(all.invalid_reason, h.invalid_reason, 1, n);
    sizes.push_back(n);
    expected_first += n;
  });
  CHECK(expected_first == c.num_envs);
  return all;
}

template <class Space>
tt::HostTrack one_batch(const TrackGenConfig& c, std::int32_t k) {
  TrackGenerator<Space> gen(c, SeedState<Space>(c.num_envs, k));
  return tt::HostTrack::from(gen.generate());
}

}  // namespace

TEMPLATE_TEST_CASE("generate_chunked equals one batch bit for bit", "[chunked]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const std::string g : {"bezier", "voronoi", "checkpoint"}) {
    TrackGenConfig c;
    c.generator = g;
    c.num_envs = 13;
    for (const std::int32_t k : {std::int32_t(7), std::int32_t(INT32_MAX - 12)}) {
      INFO(g << ", k = " << k);
      const tt::HostTrack whole = one_batch<Space>(c, k);
      std::vector<int> sizes;
      CHECK(chunked_batch<Space>(c, k, 5, sizes).bitwise_equal(whole));
      CHECK(sizes == std::vector<int>{5, 5, 3});
      sizes.clear();
      CHECK(chunked_batch<Space>(c, k, 6, sizes).bitwise_equal(whole));  // balanced: 3 chunks of 5
      CHECK(sizes == std::vector<int>{5, 5, 3});
      sizes.clear();
      CHECK(chunked_batch<Space>(c, k, 12, sizes).bitwise_equal(whole));  // 2 chunks of 7
      CHECK(sizes == std::vector<int>{7, 6});
      sizes.clear();
      CHECK(chunked_batch<Space>(c, k, 64, sizes).bitwise_equal(whole));
      CHECK(sizes == std::vector<int>{13});
    }
  }
}

TEMPLATE_TEST_CASE("a producer's windows equal unwindowed chunks bit for bit", "[chunked][windows]",
                   TRACKGEN_TEST_SPACES) {
  // 131 envs: on two OpenMP threads, each thread runs its own windows of 27
  // (five, the last one moved back by four envs and run by the thread that
  // runs the one before); elsewhere windows of 44 (three, the last one moved
  // back by an env) or of 66 (two, from four threads on), one after another;
  // chunks of 33, each a batch of its own. Eager and replayed self-graphs.
  using Space = TestType;
  for (const std::string g : {"polar", "bezier", "checkpoint"}) {
    INFO(g);
    TrackGenConfig c;
    c.generator = g;
    c.num_envs = 131;
    TrackGenerator<Space> gen(c, SeedState<Space>(c.num_envs, 7));
    CHECK(gen.window_envs() >= 1);
    CHECK(gen.window_envs() <= c.num_envs);
    CHECK(gen.window_threads() >= 1);
#if !defined(KOKKOS_ENABLE_CUDA)
    CHECK(gen.window_envs() < c.num_envs);
#endif
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION < 30600
    if constexpr (std::is_same_v<Space, Kokkos::OpenMP>) {
      if (Space().concurrency() == 2) {
        CHECK(gen.window_threads() == 2);
        CHECK(gen.window_envs() == 27);
      }
    }
#endif
    std::vector<int> sizes;
    const tt::HostTrack chunks = chunked_batch<Space>(c, 7, 40, sizes);
    CHECK(sizes == std::vector<int>{33, 33, 33, 32});
    CHECK(tt::HostTrack::from(gen.generate()).bitwise_equal(chunks));
    CHECK(tt::HostTrack::from(gen.generate()).bitwise_equal(chunks));  // the reused scratch
    gen.set_policy(Policy::eager);
    CHECK(tt::HostTrack::from(gen.generate()).bitwise_equal(chunks));
  }
}

TEMPLATE_TEST_CASE("windows of a Track and of PipelineBuffers refuse bad ranges", "[chunked][windows]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const Track<typename Space::memory_space> track(Space(), 5, 8);
  CHECK(track.window(1, 4).num_envs() == 4);
  CHECK(track.window(1, 4).center.data() == track.center.data() + 8);
  CHECK(track.window(1, 4).count.data() == track.count.data() + 1);
  CHECK_THROWS_WITH(track.window(2, 4), Catch::Contains("Track::window") && Catch::Contains("5 envs"));
  CHECK_THROWS_AS(track.window(-1, 2), ConfigError);
  CHECK_THROWS_AS(track.window(0, 0), ConfigError);
  TrackGenConfig c;
  c.num_envs = 5;
  CHECK_THROWS_WITH(PipelineBuffers<Space>(Space(), c, 6), Catch::Contains("window_envs = 6"));
  CHECK_THROWS_AS(PipelineBuffers<Space>(Space(), c, -1), ConfigError);
  const PipelineBuffers<Space> whole(Space(), c);
  CHECK(whole.scratch_envs() == 5);
  PipelineBuffers<Space> windowed;
  try {
    windowed = PipelineBuffers<Space>(Space(), c, 2);
  } catch (const ConfigError&) {  // windows only where the solve's scratch is per thread
    CHECK(whole.relax_units() == c.num_envs);
    return;
  }
  CHECK(windowed.scratch_envs() == 2);
  CHECK(windowed.cs_center.extent(0) == 5u * c.N_max);
  CHECK(windowed.relaxed.extent(0) == 2u * c.N_max);
  CHECK_THROWS_WITH(windowed.check(c, "api"), Catch::Contains("api") && Catch::Contains("window()"));
  const PipelineBuffers<Space> w = windowed.window(3, 2);
  CHECK(w.num_envs() == 2);
  CHECK(w.cs_center.data() == windowed.cs_center.data() + 3 * c.N_max);
  CHECK(w.relaxed.data() == windowed.relaxed.data());
  CHECK_THROWS_WITH(windowed.window(0, 3), Catch::Contains("PipelineBuffers::window") && Catch::Contains("3"));
  CHECK_THROWS_AS(windowed.window(4, 2), ConfigError);
  TrackGenConfig two = c;
  two.num_envs = 2;
  CHECK_NOTHROW(w.check(two, "api"));

  // Parts: the scratch envs and the solve's units split evenly.
  CHECK(windowed.part(0, 1).scratch_envs() == 2);
  CHECK(windowed.part(0, 1).relax_units() == windowed.relax_units());
  CHECK(windowed.part(0, 1).relax_unit_base() == 0);
  CHECK_THROWS_WITH(windowed.part(0, 0), Catch::Contains("PipelineBuffers::part") && Catch::Contains("part 0 of 0"));
  CHECK_THROWS_AS(windowed.part(1, 1), ConfigError);
  CHECK_THROWS_AS(windowed.part(-1, 2), ConfigError);
  CHECK_THROWS_AS(windowed.part(0, 3), ConfigError);  // 3 does not divide 2 scratch envs
  if (windowed.relax_units() % 2 == 0) {
    const PipelineBuffers<Space> p1 = windowed.part(1, 2);
    CHECK(p1.scratch_envs() == 1);
    CHECK(p1.relax_units() == windowed.relax_units() / 2);
    CHECK(p1.relax_unit_base() == windowed.relax_units() / 2);
    CHECK(p1.relaxed.data() == windowed.relaxed.data() + c.N_max);
    CHECK(p1.relaxed.extent(0) == std::size_t(c.N_max));
    CHECK(p1.cs_center.data() == windowed.cs_center.data());  // the batch's buffers stay whole
    CHECK(p1.relax_chains.data() == windowed.relax_chains.data());
    PipelineBuffers<Space> pw = p1.window(4, 1);
    CHECK(pw.relaxed.data() == p1.relaxed.data());
    CHECK(pw.cs_center.data() == windowed.cs_center.data() + 4 * c.N_max);
    CHECK(pw.relax_unit_base() == p1.relax_unit_base());
    // A part holds the solve's scratch of fewer threads than the space runs:
    // its stages refuse it before any work.
    TrackGenConfig one = c;
    one.num_envs = 1;
    Track<typename Space::memory_space> t1(Space(), 1, c.N_max);
    CHECK_THROWS_WITH(relax(LaunchContext<Space>(Space()), one, pw, t1),
                      Catch::Contains("trackgen::relax") && Catch::Contains("threads"));
  } else {
    CHECK_THROWS_AS(windowed.part(0, 2), ConfigError);
  }
}

TEST_CASE("chunk_size balances the chunks", "[chunked]") {
  CHECK(chunk_size(13, 5) == 5);
  CHECK(chunk_size(13, 6) == 5);
  CHECK(chunk_size(13, 13) == 13);
  CHECK(chunk_size(65536, 5052) == 5042);  // 13 chunks; the last holds 5032 envs of the batch
  CHECK(chunk_size(1, 1) == 1);
}

TEMPLATE_TEST_CASE("generate_chunked refuses bad input before any work", "[chunked]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig c;
  c.num_envs = 4;
  int calls = 0;
  const auto count_calls = [&](int, int, const TrackGenerator<Space>&) { ++calls; };
  CHECK_THROWS_WITH(generate_chunked(Space(), c, 0, 0, count_calls),
                    Catch::Contains("generate_chunked") && Catch::Contains("chunk_envs") && Catch::Contains("0"));
  CHECK_THROWS_WITH(generate_chunked(Space(), c, INT32_MAX - 2, 2, count_calls),
                    Catch::Contains("generate_chunked") && Catch::Contains("would wrap"));
  c.num_envs = 0;
  CHECK_THROWS_AS(generate_chunked(Space(), c, 0, 2, count_calls), ConfigError);
  CHECK(calls == 0);
}

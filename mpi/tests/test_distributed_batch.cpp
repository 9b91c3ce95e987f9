// The MPI layer under mpiexec (1 and 2 ranks): the union of the ranks' tracks
// is the single-process batch for every static generator, the collective
// metrics equal the single-process ones for any rank count, masked
// regeneration and a per-rank Course follow the global env ids, and a bad
// slice on any rank fails on every rank with the same error.
#include "field_support.hpp"

#include <catch2/catch.hpp>

#include <trackgen/metrics/batch_stats.hpp>
#include <trackgen/mpi/mpi.hpp>
#include <trackgen/runtime/course.hpp>

#include <cstring>
#include <string>
#include <vector>

using namespace trackgen;
using mpi::Slice;

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// A small batch of `generator` (few points, so every case stays quick).
TrackGenConfig small_config(const std::string& generator, int envs) {
  TrackGenConfig c;
  c.generator = generator;
  c.num_envs = envs;
  c.num_points = 96;
  c.N_max = 192;
  c.relax_iters = 20;
  return c;
}

/// Whether envs [a0, a0 + n) of `a` and [b0, b0 + n) of `b` are bitwise equal in every field.
bool same_envs(const Track<Kokkos::HostSpace>& a, int a0, const Track<Kokkos::HostSpace>& b, int b0, int n) {
  const auto differ = test::differing_fields(a, a0, b, b0, n);
  for (const auto& name : differ) UNSCOPED_INFO("field " << name << " differs");
  return differ.empty();
}

/// Bitwise equality of every numeric field of two BatchStats.
bool same_stats(const BatchStats& a, const BatchStats& b) {
  auto eq = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.generator == b.generator && a.num_envs == b.num_envs && a.num_valid == b.num_valid &&
         a.num_measured == b.num_measured && eq(a.yield, b.yield) &&
         eq(a.pre_relax_self_intersection_rate, b.pre_relax_self_intersection_rate) &&
         eq(a.xpbd_displacement, b.xpbd_displacement) && eq(a.mean_length, b.mean_length) &&
         eq(a.mean_compactness, b.mean_compactness) && eq(a.compactness_p10, b.compactness_p10) &&
         eq(a.compactness_p50, b.compactness_p50) && eq(a.compactness_p90, b.compactness_p90) &&
         eq(a.compactness_degenerate_rate, b.compactness_degenerate_rate) &&
         a.shape_variety_pass == b.shape_variety_pass && eq(a.mean_chicanes, b.mean_chicanes) &&
         eq(a.straight_frac, b.straight_frac) && eq(a.peak_curvature, b.peak_curvature) && eq(a.lap_time, b.lap_time);
}

/// Whether every rank of the world holds the same `text`.
bool same_on_all_ranks(const std::string& text) {
  const int n = static_cast<int>(text.size());
  int lo = 0, hi = 0;
  MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi) return false;
  std::string root = text;
  MPI_Bcast(root.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  const int mine = root == text ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

/// The message of the CollectiveError that constructing a batch with `slice` throws ("" if none).
template <class Space>
std::string construction_error(const TrackGenConfig& config, const Slice& slice) {
  try {
    mpi::DistributedBatch<Space> b(MPI_COMM_WORLD, Space(), config, slice, 5);
  } catch (const mpi::CollectiveError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("block_slice tiles the batch in rank order", "[mpi]") {
  CHECK(mpi::block_slice(10, 0, 3) == Slice{0, 4});
  CHECK(mpi::block_slice(10, 1, 3) == Slice{4, 3});
  CHECK(mpi::block_slice(10, 2, 3) == Slice{7, 3});
  CHECK(mpi::block_slice(2, 3, 4) == Slice{2, 0});
  CHECK_THROWS_AS(mpi::block_slice(0, 0, 1), ConfigError);
  CHECK_THROWS_AS(mpi::block_slice(4, 2, 2), ConfigError);
  CHECK(mpi::slice_seeds(Slice{3, 2}, 10, SeedExpansion::arange) == std::vector<std::int32_t>{13, 14});
  CHECK(mpi::slice_seeds(Slice{3, 1}, 10, SeedExpansion::hashed) ==
        std::vector<std::int32_t>{expand_seed(10, 3, SeedExpansion::hashed)});
}

TEMPLATE_TEST_CASE("the union of the ranks' tracks is the single-process batch", "[mpi]", TRACKGEN_SPACES) {
  using Space = TestType;
  const int R = world_size(), rank = world_rank();
  const std::string generator = GENERATE(as<std::string>{}, "bezier", "polar", "hull", "voronoi", "checkpoint");
  const SeedExpansion mode = GENERATE(SeedExpansion::arange, SeedExpansion::hashed);
  CAPTURE(generator, R, static_cast<int>(mode));
  constexpr int E = 13;  // uneven over 2 ranks
  const TrackGenConfig config = small_config(generator, E);
  const Space space;
  TrackGenerator<Space> single(space, config, SeedState<Space>(space, E, 7, mode));
  const auto expected = single.track().to_host();

  // block partition: each rank's slice, and the gather on every root
  mpi::DistributedBatch<Space> batch(MPI_COMM_WORLD, space, config, 7, mode);
  batch.generate();
  const Slice s = batch.slice();
  CHECK(s == mpi::block_slice(E, rank, R));
  CHECK(same_envs(batch.track().to_host(), 0, expected, s.first, s.count));
  for (int root = 0; root < R; ++root) {
    const auto all = batch.gather(root);
    if (rank == root) {
      REQUIRE(all.num_envs() == E);
      CHECK(same_envs(all, 0, expected, 0, E));
    } else {
      CHECK(all.num_envs() == 0);
    }
  }
  // caller-given slices in reverse rank order
  const Slice reversed = mpi::block_slice(E, R - 1 - rank, R);
  mpi::DistributedBatch<Space> rev(MPI_COMM_WORLD, space, config, reversed, 7, mode);
  CHECK(rev.slice() == reversed);
  const auto all = rev.gather(0);
  if (rank == 0) CHECK(same_envs(all, 0, expected, 0, E));
}

TEST_CASE("gather_tracks moves every field of the Track's list", "[mpi]") {
  using HostTrack = Track<Kokkos::HostSpace>;
  const int R = world_size(), rank = world_rank();
  constexpr int E = 7, N = 3;
  std::vector<Slice> slices;
  for (int r = 0; r < R; ++r) slices.push_back(mpi::block_slice(E, R - 1 - r, R));  // global ids out of rank order
  const Slice mine = slices[static_cast<std::size_t>(rank)];
  HostTrack local;
  if (mine.count > 0) {
    local = HostTrack(mine.count, N);
    test::fill_field_patterns(local, mine.first);  // distinct values in every field, by global env id
  }
  const HostTrack all = mpi::gather_tracks(MPI_COMM_WORLD, slices, N, mine.count > 0 ? &local : nullptr, 0);
  if (rank == 0) {
    const HostTrack want(E, N);
    test::fill_field_patterns(want);
    REQUIRE(all.num_envs() == E);
    CHECK(same_envs(all, 0, want, 0, E));
  }
}

TEMPLATE_TEST_CASE("collective metrics equal the single-process ones at every rank count", "[mpi]", TRACKGEN_SPACES) {
  using Space = TestType;
  const int R = world_size(), rank = world_rank();
  const std::string generator = GENERATE(as<std::string>{}, "bezier", "voronoi", "checkpoint");
  const int E = GENERATE(1, 37);  // E = 1: empty slices on every rank but one
  CAPTURE(generator, E, R);
  const TrackGenConfig config = small_config(generator, E);
  const Space space;
  TrackGenerator<Space> single(space, config, SeedState<Space>(space, E, 3));
  const BatchStats expected = batch_stats(single);
  const TrackCounts expected_counts = track_counts(single.track());

  mpi::DistributedBatch<Space> world(MPI_COMM_WORLD, space, config, 3);
  mpi::DistributedBatch<Space> self(MPI_COMM_SELF, space, config, 3);  // R = 1 in the same run
  CHECK(self.slice() == Slice{0, E});
  CHECK(world.slice() == mpi::block_slice(E, rank, R));
  CHECK((world.local() == nullptr) == (world.slice().count == 0));
  const BatchStats w = world.stats(), o = self.stats();
  CHECK(same_stats(w, expected));
  CHECK(same_stats(o, expected));
  const TrackCounts c = world.counts();
  CHECK(c.num_envs == expected_counts.num_envs);
  CHECK(c.num_valid == expected_counts.num_valid);
  CHECK(c.num_truncated == expected_counts.num_truncated);
}

TEMPLATE_TEST_CASE("masked regeneration follows the global env ids", "[mpi]", TRACKGEN_SPACES) {
  using Space = TestType;
  const int rank = world_rank();
  constexpr int E = 11;
  const TrackGenConfig config = small_config("bezier", E);
  const Space space;
  const std::vector<int> ids{1, 5, 6, 10};
  TrackGenerator<Space> single(space, config, SeedState<Space>(space, E, 21));
  DView<std::int32_t, Space> mask(Kokkos::view_alloc(space, "mask"), E);
  auto h = Kokkos::create_mirror_view(mask);
  for (int id : ids) h(id) = 1;
  Kokkos::deep_copy(mask, h);
  single.generate(mask, /*advance=*/true);
  const auto expected = single.track().to_host();

  mpi::DistributedBatch<Space> batch(MPI_COMM_WORLD, space, config, 21);
  batch.regenerate(ids, /*advance=*/true);
  const auto all = batch.gather(0);
  if (rank == 0) CHECK(same_envs(all, 0, expected, 0, E));
  // the regenerated envs changed: the batch is not the initial one any more
  TrackGenerator<Space> initial(space, config, SeedState<Space>(space, E, 21));
  if (rank == 0) CHECK_FALSE(same_envs(all, 1, initial.track().to_host(), 1, 1));
  CHECK_THROWS_AS(batch.regenerate(std::vector<int>{E}), ConfigError);
}

TEMPLATE_TEST_CASE("a Course on a rank's slice is the slice of the whole Course", "[mpi]", TRACKGEN_SPACES) {
  using Space = TestType;
  const int R = world_size(), rank = world_rank();
  constexpr int E = 6;
  CourseConfig config;
  config.gen = small_config("polar", E);
  config.seed = 40;
  config.checkpoint_spacing = 0.4f;
  const Space space;
  Course<Space> whole(space, config);
  const Slice s = mpi::block_slice(E, rank, R);
  CourseConfig local = config;
  local.gen = mpi::slice_config(config.gen, s);
  Course<Space> part(space, local, mpi::slice_seed_view(space, s, config.seed));
  CHECK(same_envs(part.track().to_host(), 0, whole.track().to_host(), s.first, s.count));
  const auto wc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole.checkpoints().count);
  const auto pc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part.checkpoints().count);
  for (int i = 0; i < s.count; ++i) CHECK(pc(i) == wc(s.first + i));
}

TEMPLATE_TEST_CASE("a bad slice on any rank fails on every rank with the same error", "[mpi]", TRACKGEN_SPACES) {
  using Space = TestType;
  const int R = world_size(), rank = world_rank();
  constexpr int E = 8;
  const TrackGenConfig config = small_config("bezier", E);
  const Slice good = mpi::block_slice(E, rank, R);

  // out of range on the last rank only
  Slice past = good;
  if (rank == R - 1) past.count += 1;
  const std::string e1 = construction_error<Space>(config, past);
  CHECK(e1.find("trackgen::mpi::DistributedBatch: rank " + std::to_string(R - 1) + "'s slice") != std::string::npos);
  CHECK(e1.find("ends past num_envs = 8") != std::string::npos);
  CHECK(same_on_all_ranks(e1));

  // a negative first on rank 0 only
  Slice negative = good;
  if (rank == 0) negative.first = -1;
  const std::string e2 = construction_error<Space>(config, negative);
  CHECK(e2.find("rank 0's slice [-1,") != std::string::npos);
  CHECK(same_on_all_ranks(e2));

  // a gap: the last rank's slice drops its first env
  Slice gap = good;
  if (rank == R - 1) gap = {good.first + 1, good.count - 1};
  const std::string e3 = construction_error<Space>(config, gap);
  CHECK(e3.find("belong to no rank") != std::string::npos);
  CHECK(same_on_all_ranks(e3));

  // a bad config field: validation fails on every rank (agreed)
  TrackGenConfig bad = config;
  bad.relax_iters = -3;
  const std::string e4 = construction_error<Space>(bad, good);
  CHECK(e4.find("relax_iters") != std::string::npos);
  CHECK(same_on_all_ranks(e4));

  if (R >= 2) {
    // rank 1 takes rank 0's slice as well: an overlap
    Slice overlap = good;
    if (rank == 1) overlap = {0, good.end()};
    const std::string e5 = construction_error<Space>(config, overlap);
    CAPTURE(e5);
    CHECK(e5.find("overlaps") != std::string::npos);
    CHECK(same_on_all_ranks(e5));
    // an unknown generator on one rank only: that rank's construction fails, every rank throws
    TrackGenConfig odd = config;
    if (rank == 1) odd.generator = "no_such_generator";
    const std::string e6 = construction_error<Space>(odd, good);
    CHECK(e6.find("rank 1: ") == 0);
    CHECK(same_on_all_ranks(e6));
  }
  // and the good slices still build
  CHECK(construction_error<Space>(config, good).empty());
}

// A base seed whose env seeds would pass INT32_MAX over the whole batch: every
// rank refuses it with the same error, also the ranks whose slice ends early
// (the single process refuses it too: check_arange_seeds).
TEMPLATE_TEST_CASE("a base seed that would wrap is refused on every rank", "[mpi]", TRACKGEN_SPACES) {
  using Space = TestType;
  constexpr int E = 10;
  const TrackGenConfig config = small_config("bezier", E);
  std::string error;
  try {
    mpi::DistributedBatch<Space> b(MPI_COMM_WORLD, Space(), config, 2147483640);
  } catch (const mpi::CollectiveError& e) {
    error = e.what();
  }
  CAPTURE(error);
  CHECK(error.find("base seed 2147483640 with num_envs = 10 would wrap") != std::string::npos);
  CHECK(same_on_all_ranks(error));
  CHECK_NOTHROW(mpi::DistributedBatch<Space>(MPI_COMM_WORLD, Space(), config, 2147483647 - (E - 1)));
}

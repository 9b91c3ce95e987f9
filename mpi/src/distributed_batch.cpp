#include <trackgen/mpi/distributed_batch.hpp>

#include "comm.hpp"

#include <string>

namespace trackgen::mpi {

TrackGenConfig slice_config(const TrackGenConfig& config, const Slice& slice) {
  TrackGenConfig c = config;
  c.num_envs = slice.count;
  return c;
}

template <class Space>
DView<std::int32_t, Space> slice_seed_view(const Space& space, const Slice& slice, std::int32_t k, SeedExpansion mode) {
  if (slice.count < 1) {
    throw ConfigError("trackgen::mpi::slice_seed_view: slice.count must be >= 1, got " + std::to_string(slice.count));
  }
  const std::vector<std::int32_t> seeds = slice_seeds(slice, k, mode);
  DView<std::int32_t, Space> v(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label("mpi", "seeds")),
                               seeds.size());
  const Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(seeds.data(),
                                                                                                        seeds.size());
  Kokkos::deep_copy(space, v, h);
  space.fence();
  return v;
}

namespace {
/// The block slice of the calling rank, or an impossible one when the config's
/// num_envs is not >= 1 (gather_slices then reports it on every rank).
Slice block_of(MPI_Comm comm, const TrackGenConfig& config) {
  if (config.num_envs < 1) return {0, 0};
  return block_slice(config.num_envs, detail::comm_rank(comm), detail::comm_size(comm));
}
}  // namespace

template <class Space>
DistributedBatch<Space>::DistributedBatch(MPI_Comm comm, const Space& space, const TrackGenConfig& config,
                                          std::int32_t seed, SeedExpansion mode)
    : DistributedBatch(comm, space, config, block_of(comm, config), seed, mode) {}

template <class Space>
DistributedBatch<Space>::DistributedBatch(MPI_Comm comm, const Space& space, const TrackGenConfig& config,
                                          const Slice& slice, std::int32_t seed, SeedExpansion mode)
    : comm_(comm), space_(space), config_(config), rank_(detail::comm_rank(comm)) {
  const std::string api = "trackgen::mpi::DistributedBatch";
  slices_ = gather_slices(comm_, config_.num_envs, slice, api);
  // The config is checked on every rank (an empty slice builds no producer),
  // and any failure to build the local producer fails every rank.
  agree(comm_, [&] {
    config_.validate();
    // The whole batch's seeds, so that every rank refuses a base seed whose
    // env seeds would wrap, not only the ranks whose slice reaches the end.
    if (mode == SeedExpansion::arange) check_arange_seeds(api.c_str(), seed, config_.num_envs);
    if (slice.count == 0) return;
    seeds_ = slice_seeds(slice, seed, mode);
    const DView<std::int32_t, Space> seeds = slice_seed_view(space_, slice, seed, mode);
    gen_ = std::make_unique<TrackGenerator<Space>>(space_, slice_config(config_, slice),
                                                   SeedState<Space>(space_, seeds, /*copy=*/true));
    mask_ = IntView(Kokkos::view_alloc(space_, label("mpi", "mask")), static_cast<std::size_t>(slice.count));
  });
}

template <class Space>
void DistributedBatch<Space>::generate() {
  if (gen_) gen_->generate();
}

template <class Space>
void DistributedBatch<Space>::regenerate(const std::vector<int>& global_ids, bool advance) {
  const Slice s = slice();
  auto host = Kokkos::create_mirror_view(mask_);
  for (int id : global_ids) {
    if (id < 0 || id >= num_envs()) {
      throw ConfigError("trackgen::mpi::DistributedBatch::regenerate: global_ids holds " + std::to_string(id) +
                        ", outside [0, " + std::to_string(num_envs()) + ")");
    }
  }
  if (!gen_) return;
  Kokkos::deep_copy(host, 0);
  for (int id : global_ids) {
    if (id >= s.first && id < s.end()) host(static_cast<std::size_t>(id - s.first)) = 1;
  }
  Kokkos::deep_copy(space_, mask_, host);
  gen_->generate(mask_, advance);
}

template <class Space>
void DistributedBatch<Space>::regenerate(const IntView& local_mask, bool advance) {
  if (!gen_) {
    if (local_mask.extent(0) != 0) {
      throw ConfigError(
          "trackgen::mpi::DistributedBatch::regenerate: local_mask must be empty on a rank with an "
          "empty slice, got extent " +
          std::to_string(local_mask.extent(0)));
    }
    return;
  }
  gen_->generate(local_mask, advance);
}

template <class Space>
const typename DistributedBatch<Space>::track_type& DistributedBatch<Space>::track() const {
  if (!gen_) {
    throw ConfigError("trackgen::mpi::DistributedBatch::track: rank " + std::to_string(rank_) +
                      " holds an empty slice");
  }
  return gen_->track();
}

template <class Space>
void DistributedBatch<Space>::set_policy(Policy p) {
  if (gen_) gen_->set_policy(p);
}

template <class Space>
TrackCounts DistributedBatch<Space>::counts() const {
  return reduce_counts(comm_, num_envs(), gen_ ? track_counts(gen_->track()) : TrackCounts{});
}

template <class Space>
BatchStats DistributedBatch<Space>::stats(double ms_per_call) const {
  std::vector<EnvStats> local;
  if (gen_) {
    BatchMetrics<Space> m(space_, gen_->track().num_envs(), gen_->track().n_max());
    local = m.env_stats(gen_->track(), gen_->pre_relax_centerline());
  }
  BatchStats s = reduce_stats(comm_, slices_, local);
  s.generator = config_.generator;
  s.gen_ms_per_call = ms_per_call;
  return s;
}

template <class Space>
Track<Kokkos::HostSpace> DistributedBatch<Space>::gather(int root) const {
  if (!gen_) return gather_tracks(comm_, slices_, config_.N_max, nullptr, root);
  const Track<Kokkos::HostSpace> host = gen_->track().to_host();
  return gather_tracks(comm_, slices_, gen_->track().n_max(), &host, root);
}

#define TRACKGEN_INSTANTIATE_MPI(S)   \
  template class DistributedBatch<S>; \
  template DView<std::int32_t, S> slice_seed_view<S>(const S&, const Slice&, std::int32_t, SeedExpansion);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_MPI)
#undef TRACKGEN_INSTANTIATE_MPI

}  // namespace trackgen::mpi

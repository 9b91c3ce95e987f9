// DistributedBatch: one batch of E global envs split over the ranks of an MPI
// communicator (docs/mpi.md). Each rank holds a TrackGenerator of its own slice
// on its own Kokkos instance; env ids and seeds stay global, so the union of
// the ranks' tracks is bit-identical to a single-process TrackGenerator of the
// same E and seed, whatever the number of ranks.
//
// Nothing crosses the network in generate() or regenerate(): a rank's batch is a
// pure function of its global seeds. The collective methods (construction,
// counts(), stats(), gather()) move only their results: two integers per rank,
// the per-env metric records (to rank 0), or the gathered tracks (to the root).
#pragma once

#include <trackgen/exec/producer.hpp>
#include <trackgen/metrics/batch_stats.hpp>
#include <trackgen/exec/producer.hpp>
#include <trackgen/mpi/partition.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <mpi.h>

#include <memory>
#include <vector>

namespace trackgen::mpi {

/// Collective: the counts of a batch from every rank's counts of its own slice
/// (`local`, from track_counts; zeros for an empty slice): integer sums, exact
/// and independent of the rank count. `num_envs` is the global E.
TrackCounts reduce_counts(MPI_Comm comm, int num_envs, const TrackCounts& local);

/// Collective: the BatchStats of the global batch from every rank's per-env
/// records of its slice (`local`, from BatchMetrics::env_stats; `slices` from
/// gather_slices): the records are gathered to rank 0 in global env order,
/// aggregated there with aggregate_batch_stats() (the single-process code), and
/// the result is broadcast, so every rank returns the bits a single process
/// computes (`generator` and `gen_ms_per_call` left empty).
BatchStats reduce_stats(MPI_Comm comm, const std::vector<Slice>& slices, const std::vector<EnvStats>& local);

/// Collective: the global batch on rank `root` (a host Track of sum(count) envs,
/// each rank's slice at its global env ids) from every rank's `local` host copy
/// of its slice (nullptr for an empty slice); an empty Track on the other ranks.
/// All slices must have the same n_max.
Track<Kokkos::HostSpace> gather_tracks(MPI_Comm comm, const std::vector<Slice>& slices, int n_max,
                                       const Track<Kokkos::HostSpace>* local, int root = 0);

template <class Space = Kokkos::DefaultExecutionSpace>
class DistributedBatch : public ProducerTypes<Space, Track<typename Space::memory_space>> {
 public:
  using IntView = typename ProducerTypes<Space, Track<typename Space::memory_space>>::IntView;
  using track_type = Track<typename Space::memory_space>;

  /// Collective: the block partition of config.num_envs envs over the ranks of
  /// `comm` (block_slice), seeds expand_seed(seed, e, mode) of the global env
  /// ids, a TrackGenerator of the rank's slice on `space`. A bad config, or a
  /// construction that fails on any rank, throws CollectiveError on every rank.
  DistributedBatch(MPI_Comm comm, const Space& space, const TrackGenConfig& config, std::int32_t seed = 0,
                   SeedExpansion mode = SeedExpansion::arange);

  /// Collective: the same with the caller's `slice` for this rank. The slices
  /// of all ranks must tile [0, config.num_envs) exactly (gather_slices): an
  /// overlap, a gap or a slice out of range on any rank throws the same
  /// CollectiveError on every rank before anything is allocated.
  DistributedBatch(MPI_Comm comm, const Space& space, const TrackGenConfig& config, const Slice& slice,
                   std::int32_t seed = 0, SeedExpansion mode = SeedExpansion::arange);

  DistributedBatch(const DistributedBatch&) = delete;
  DistributedBatch& operator=(const DistributedBatch&) = delete;

  /// Generates the rank's slice (local: no communication; nothing on an empty
  /// slice). Repeated calls with unchanged seeds give the identical batch.
  void generate();

  /// Regenerates the envs whose global ids are in `global_ids` (advancing their
  /// epochs first when `advance`): the ones in this rank's slice; every other
  /// env stays bit-identical, so a rank may be given the whole list or only its
  /// own ids (local: no communication). ConfigError, before any work, for an id
  /// outside [0, num_envs()).
  void regenerate(const std::vector<int>& global_ids, bool advance = false);

  /// Masked regeneration with an [count] mask of the local envs (local env i is
  /// global env slice().first + i), as TrackGenerator::generate(mask, advance).
  void regenerate(const IntView& local_mask, bool advance = false);

  /// Collective: counts of the global batch (exact integer sums).
  TrackCounts counts() const;
  /// Collective: the BatchStats of the global batch, bit-identical to
  /// batch_stats() of one TrackGenerator of the whole batch (reduce_stats),
  /// on every rank; `ms_per_call` is copied into the result.
  BatchStats stats(double ms_per_call = 0.0) const;
  /// Collective: the global batch on `root` (gather_tracks); an empty Track elsewhere.
  Track<Kokkos::HostSpace> gather(int root = 0) const;

  /// The local producer (nullptr on a rank with an empty slice).
  TrackGenerator<Space>* local() { return gen_.get(); }
  const TrackGenerator<Space>* local() const { return gen_.get(); }
  /// The rank's tracks (local env i at index i; ConfigError on an empty slice).
  const track_type& track() const;
  /// The global config (num_envs = E); local().config() has num_envs = slice().count.
  const TrackGenConfig& config() const { return config_; }
  /// Global envs E.
  int num_envs() const { return config_.num_envs; }
  /// The global seeds of the local envs (host copy of the initial seeds).
  const std::vector<std::int32_t>& seeds() const { return seeds_; }
  /// This rank's slice of the global envs.
  const Slice& slice() const { return slices_[static_cast<std::size_t>(rank_)]; }
  /// Every rank's slice, in rank order.
  const std::vector<Slice>& slices() const { return slices_; }
  /// The communicator (not owned: it must outlive the batch), this process's
  /// rank in it and its number of ranks.
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return static_cast<int>(slices_.size()); }
  /// The execution-space instance of every allocation and launch of this rank.
  const Space& space() const { return space_; }
  /// Sets the local producer's execution policy (TrackGenerator::set_policy).
  void set_policy(Policy p);
  /// Device bytes of the local producer (0 on an empty slice).
  std::size_t device_bytes() const { return gen_ ? gen_->device_bytes() : 0; }

 private:
  MPI_Comm comm_;
  Space space_;
  TrackGenConfig config_;
  int rank_ = 0;
  std::vector<Slice> slices_;
  std::vector<std::int32_t> seeds_;
  std::unique_ptr<TrackGenerator<Space>> gen_;
  IntView mask_;  // [count] mask of regenerate(global_ids): one stable View, one cached graph
};

/// The config of a rank's slice: `config` with num_envs = slice.count.
TrackGenConfig slice_config(const TrackGenConfig& config, const Slice& slice);

/// The [count] seed View of `slice` on `space` (slice_seeds, copied to the
/// device): bind it to a Course or TrackGenerator of slice_config() to build
/// any producer on a rank's slice.
template <class Space>
DView<std::int32_t, Space> slice_seed_view(const Space& space, const Slice& slice, std::int32_t k,
                                           SeedExpansion mode = SeedExpansion::arange);

}  // namespace trackgen::mpi

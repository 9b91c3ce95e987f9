// The batch of `trackgen generate` on one process or over the ranks of an MPI
// run (docs/mpi.md): under several ranks, a trackgen::mpi::DistributedBatch of
// MPI_COMM_WORLD (block partition, global env ids and seeds); otherwise the
// TrackGenerator the command always used. Its results are the same bits either way.
#pragma once

#include "app.hpp"

#if TRACKGEN_APP_MPI
#include <trackgen/mpi/mpi.hpp>
#endif

#include <memory>

namespace trackgen::app {

template <class Space>
class RankBatch {
 public:
  /// The batch of `config` with base seed `seed` (env e uses seed + e) on `space`.
  RankBatch(const Space& space, const TrackGenConfig& config, int seed) {
#if TRACKGEN_APP_MPI
    if (process_count() > 1) {
      dist_ = std::make_unique<mpi::DistributedBatch<Space>>(MPI_COMM_WORLD, space, config, seed);
      return;
    }
#endif
    single_ = std::make_unique<TrackGenerator<Space>>(space, config, SeedState<Space>(space, config.num_envs, seed));
  }

  /// The producer's execution policy (TrackGenerator::set_policy).
  void set_policy(Policy p) {
#if TRACKGEN_APP_MPI
    if (dist_) return dist_->set_policy(p);
#endif
    single_->set_policy(p);
  }
  /// Generates this rank's envs (no communication).
  void generate() {
#if TRACKGEN_APP_MPI
    if (dist_) return dist_->generate();
#endif
    single_->generate();
  }
  /// The execution-space instance of this process's producer.
  const Space& space() const {
#if TRACKGEN_APP_MPI
    if (dist_) return dist_->space();
#endif
    return single_->space();
  }
  /// Whether this process writes the outputs (rank 0).
  bool root() const { return process_rank() == 0; }
  /// Collective: the whole batch on the host of rank 0 (empty elsewhere).
  Track<Kokkos::HostSpace> host_track() const {
#if TRACKGEN_APP_MPI
    if (dist_) return dist_->gather(0);
#endif
    return single_->track().to_host();
  }
  /// Collective: the counts of the whole batch.
  TrackCounts counts() const {
#if TRACKGEN_APP_MPI
    if (dist_) return dist_->counts();
#endif
    return track_counts(single_->track());
  }
  /// Collective: the batch statistics of the whole batch (the same bits at any rank count).
  BatchStats stats() const {
#if TRACKGEN_APP_MPI
    if (dist_) return dist_->stats();
#endif
    return batch_stats(*single_);
  }

 private:
#if TRACKGEN_APP_MPI
  std::unique_ptr<mpi::DistributedBatch<Space>> dist_;
#endif
  std::unique_ptr<TrackGenerator<Space>> single_;
};

}  // namespace trackgen::app

// Slices of a global batch over the ranks of an MPI communicator, and the
// collective checks that keep every rank in step (docs/mpi.md).
//
// A distributed batch has E global envs; rank r owns the contiguous slice
// [first, first + count) of them. Env ids and seeds stay global: local env i of
// rank r is global env first + i, seeded expand_seed(k, first + i, mode), so the
// union of the ranks' tracks is the single-process batch of the same E and k.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/seeds.hpp>

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trackgen::mpi {

/// The global envs [first, first + count) a rank owns.
struct Slice {
  int first = 0;
  int count = 0;
  /// One past the last global env id of the slice.
  int end() const { return first + count; }
  /// Same first and count.
  bool operator==(const Slice&) const = default;
};

/// The block partition of `num_envs` envs over `size` ranks: rank r gets
/// num_envs / size envs, one more for the first num_envs % size ranks, in rank
/// order (empty slices when num_envs < size). ConfigError for num_envs < 1,
/// size < 1 or a rank outside [0, size).
Slice block_slice(int num_envs, int rank, int size);

/// An error every rank of a communicator raised together, with the same message
/// (a ConfigError: the input was bad somewhere). Front ends can finish normally
/// on it; any other exception on one rank means the others may be waiting.
class CollectiveError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

/// Runs `f` on every rank of `comm` (collective), then agrees on the outcome:
/// when `f` threw on any rank, every rank throws CollectiveError with the
/// message of the lowest failing rank ("rank R: <message>"), so no rank is left
/// waiting in a later collective.
void agree(MPI_Comm comm, const std::function<void()>& f);

/// Collective: gathers every rank's slice of a batch of `num_envs` envs and
/// checks them on every rank, so a bad slice anywhere fails on all ranks with
/// the same CollectiveError naming `api`, the rank and the slice: num_envs that
/// differ between ranks, a negative first or count, a slice that ends past
/// num_envs, two slices that overlap, or envs that no rank owns. Returns the
/// slices in rank order.
std::vector<Slice> gather_slices(MPI_Comm comm, int num_envs, const Slice& mine, const std::string& api);

/// The global seeds of `slice` for base seed `k`: expand_seed(k, first + i,
/// mode) for i in [0, count) (host values).
std::vector<std::int32_t> slice_seeds(const Slice& slice, std::int32_t k, SeedExpansion mode);

/// The rank of the calling process among the ranks of `comm` on its node
/// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED; collective).
int node_local_rank(MPI_Comm comm);

}  // namespace trackgen::mpi

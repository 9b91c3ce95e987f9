#include <trackgen/mpi/distributed_batch.hpp>

#include "comm.hpp"

#include <array>

namespace trackgen::mpi {

namespace {

using detail::comm_rank;

/// An MPI datatype of `bytes` contiguous bytes (one env's share of a field),
/// freed with the object: counts and displacements then count envs, so the
/// gathers never overflow int at large batches.
class RowType {
 public:
  explicit RowType(std::size_t bytes) {
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_);
    MPI_Type_commit(&type_);
  }
  ~RowType() { MPI_Type_free(&type_); }
  RowType(const RowType&) = delete;
  RowType& operator=(const RowType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// Gathers `rows_per_env` elements of T per env from every rank's `send` (its
/// slice's envs in order) into `recv` (the global field, env e at row e) on `root`.
template <class T>
void gather_rows(MPI_Comm comm, const std::vector<Slice>& slices, int rank, int root, std::size_t rows_per_env,
                 const T* send, T* recv) {
  const RowType row(sizeof(T) * rows_per_env);
  std::vector<int> counts, displs;
  for (const Slice& s : slices) {
    counts.push_back(s.count);
    displs.push_back(s.first);
  }
  const int mine = slices[static_cast<std::size_t>(rank)].count;
  MPI_Gatherv(mine > 0 ? send : nullptr, mine, row.get(), recv, counts.data(), displs.data(), row.get(), root, comm);
}

}  // namespace

TrackCounts reduce_counts(MPI_Comm comm, int num_envs, const TrackCounts& local) {
  std::array<long long, 2> mine{local.num_valid, local.num_truncated}, sum{0, 0};
  MPI_Allreduce(mine.data(), sum.data(), 2, MPI_LONG_LONG, MPI_SUM, comm);
  TrackCounts c;
  c.num_envs = num_envs;
  c.num_valid = static_cast<int>(sum[0]);
  c.num_truncated = static_cast<int>(sum[1]);
  return c;
}

BatchStats reduce_stats(MPI_Comm comm, const std::vector<Slice>& slices, const std::vector<EnvStats>& local) {
  constexpr int root = 0;
  const int rank = comm_rank(comm);
  int total = 0;
  for (const Slice& s : slices) total += s.count;
  std::vector<EnvStats> all(rank == root ? static_cast<std::size_t>(total) : 0);
  gather_rows(comm, slices, rank, root, 1, local.data(), all.data());
  BatchStats s;
  if (rank == root) s = aggregate_batch_stats(all);
  // Every numeric field, as root computed it (bit for bit): one list of members
  // packs root's values and unpacks them on every rank.
  constexpr std::array<double BatchStats::*, 13> reals{&BatchStats::yield,
                                                       &BatchStats::pre_relax_self_intersection_rate,
                                                       &BatchStats::xpbd_displacement,
                                                       &BatchStats::mean_length,
                                                       &BatchStats::mean_compactness,
                                                       &BatchStats::compactness_p10,
                                                       &BatchStats::compactness_p50,
                                                       &BatchStats::compactness_p90,
                                                       &BatchStats::compactness_degenerate_rate,
                                                       &BatchStats::mean_chicanes,
                                                       &BatchStats::straight_frac,
                                                       &BatchStats::peak_curvature,
                                                       &BatchStats::lap_time};
  constexpr std::array<int BatchStats::*, 3> counts{&BatchStats::num_envs, &BatchStats::num_valid,
                                                    &BatchStats::num_measured};
  std::array<double, reals.size()> d{};
  std::array<int, counts.size() + 1> n{};
  for (std::size_t k = 0; k < reals.size(); ++k) d[k] = s.*reals[k];
  for (std::size_t k = 0; k < counts.size(); ++k) n[k] = s.*counts[k];
  n[counts.size()] = s.shape_variety_pass ? 1 : 0;
  MPI_Bcast(d.data(), static_cast<int>(d.size()), MPI_DOUBLE, root, comm);
  MPI_Bcast(n.data(), static_cast<int>(n.size()), MPI_INT, root, comm);
  BatchStats r;
  for (std::size_t k = 0; k < reals.size(); ++k) r.*reals[k] = d[k];
  for (std::size_t k = 0; k < counts.size(); ++k) r.*counts[k] = n[k];
  r.shape_variety_pass = n[counts.size()] != 0;
  return r;
}

Track<Kokkos::HostSpace> gather_tracks(MPI_Comm comm, const std::vector<Slice>& slices, int n_max,
                                       const Track<Kokkos::HostSpace>* local, int root) {
  const int rank = comm_rank(comm);
  const int mine = slices[static_cast<std::size_t>(rank)].count;
  if (mine > 0 && (local == nullptr || local->num_envs() != mine || local->n_max() != n_max)) {
    throw ConfigError("trackgen::mpi::gather_tracks: rank " + std::to_string(rank) + "'s track must have " +
                      std::to_string(mine) + " envs of n_max " + std::to_string(n_max));
  }
  int total = 0;
  for (const Slice& s : slices) total += s.count;
  Track<Kokkos::HostSpace> out;
  if (rank == root) out = Track<Kokkos::HostSpace>(Kokkos::DefaultHostExecutionSpace(), total, n_max);
  const Track<Kokkos::HostSpace> none;
  const Track<Kokkos::HostSpace>& in = mine > 0 ? *local : none;
  const std::size_t N = static_cast<std::size_t>(n_max);
  // Every field of the Track's list, each in one gather: N rows per env for
  // the per-point fields, one for the per-env ones.
  Track<Kokkos::HostSpace>::for_each_field(in, out, [&](const char*, const auto& src, auto& dst, auto shape) {
    gather_rows(comm, slices, rank, root, decltype(shape)::value ? N : 1, src.data(), dst.data());
  });
  return out;
}

}  // namespace trackgen::mpi

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
  // Every numeric field, as root computed it (bit for bit).
  std::array<double, 13> d{s.yield,
                           s.pre_relax_self_intersection_rate,
                           s.xpbd_displacement,
                           s.mean_length,
                           s.mean_compactness,
                           s.compactness_p10,
                           s.compactness_p50,
                           s.compactness_p90,
                           s.compactness_degenerate_rate,
                           s.mean_chicanes,
                           s.straight_frac,
                           s.peak_curvature,
                           s.lap_time};
  std::array<int, 4> n{s.num_envs, s.num_valid, s.num_measured, s.shape_variety_pass ? 1 : 0};
  MPI_Bcast(d.data(), static_cast<int>(d.size()), MPI_DOUBLE, root, comm);
  MPI_Bcast(n.data(), static_cast<int>(n.size()), MPI_INT, root, comm);
  BatchStats r;
  r.num_envs = n[0];
  r.num_valid = n[1];
  r.num_measured = n[2];
  r.shape_variety_pass = n[3] != 0;
  r.yield = d[0];
  r.pre_relax_self_intersection_rate = d[1];
  r.xpbd_displacement = d[2];
  r.mean_length = d[3];
  r.mean_compactness = d[4];
  r.compactness_p10 = d[5];
  r.compactness_p50 = d[6];
  r.compactness_p90 = d[7];
  r.compactness_degenerate_rate = d[8];
  r.mean_chicanes = d[9];
  r.straight_frac = d[10];
  r.peak_curvature = d[11];
  r.lap_time = d[12];
  return r;
}

// The Track's field list as gather_tracks moves it; a field added to Track
// changes its size and stops the build here until it is added below.
static_assert(sizeof(Track<Kokkos::HostSpace>) == 13 * sizeof(Kokkos::View<int*, Kokkos::HostSpace>) + 2 * sizeof(int),
              "trackgen::mpi::gather_tracks: Track has another field; gather it too");

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
  auto point = [&](const auto& src, const auto& dst) {
    gather_rows(comm, slices, rank, root, N, src.data(), dst.data());
  };
  auto env = [&](const auto& src, const auto& dst) {
    gather_rows(comm, slices, rank, root, 1, src.data(), dst.data());
  };
  point(in.outer, out.outer);
  point(in.center, out.center);
  point(in.inner, out.inner);
  point(in.tangent, out.tangent);
  point(in.normal, out.normal);
  point(in.arclen, out.arclen);
  env(in.length, out.length);
  env(in.valid, out.valid);
  env(in.count, out.count);
  env(in.winding, out.winding);
  env(in.truncated, out.truncated);
  env(in.sep_overflow, out.sep_overflow);
  env(in.invalid_reason, out.invalid_reason);
  return out;
}

}  // namespace trackgen::mpi

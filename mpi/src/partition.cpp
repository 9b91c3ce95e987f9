#include <trackgen/mpi/partition.hpp>

#include "comm.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <numeric>

namespace trackgen::mpi {

namespace {
using detail::comm_rank;
using detail::comm_size;
std::string show(const Slice& s) {
  std::string text = "[";  // appended piece by piece (GCC 12 -Wrestrict misfires on "[" + std::string)
  text += std::to_string(s.first);
  text += ", ";
  text += std::to_string(s.end());
  text += ") (first ";
  text += std::to_string(s.first);
  text += ", count ";
  text += std::to_string(s.count);
  text += ")";
  return text;
}

/// The check of gather_slices on the gathered values; "" when they are good.
std::string check_slices(const std::vector<std::array<int, 3>>& all, const std::string& api) {
  const int E = all[0][0];
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r][0] != E) {
      return api + ": num_envs differs between ranks: rank 0 has " + std::to_string(E) + ", rank " + std::to_string(r) +
             " has " + std::to_string(all[r][0]);
    }
  }
  if (E < 1) return api + ": num_envs must be >= 1, got " + std::to_string(E);
  std::vector<std::pair<Slice, int>> order;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const Slice s{all[r][1], all[r][2]};
    const std::string who = api + ": rank " + std::to_string(r) + "'s slice " + show(s);
    if (s.first < 0 || s.count < 0) return who + " has a negative first or count";
    if (s.count > E || s.first > E - s.count) return who + " ends past num_envs = " + std::to_string(E);
    if (s.count > 0) order.emplace_back(s, static_cast<int>(r));
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first.first < b.first.first; });
  int covered = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& [s, r] = order[i];
    if (i > 0 && s.first < order[i - 1].first.end()) {
      const auto& [p, pr] = order[i - 1];
      return api + ": rank " + std::to_string(r) + "'s slice " + show(s) + " overlaps rank " + std::to_string(pr) +
             "'s slice " + show(p);
    }
    if (s.first > covered) {
      return api + ": envs [" + std::to_string(covered) + ", " + std::to_string(s.first) +
             ") of num_envs = " + std::to_string(E) + " belong to no rank";
    }
    covered = s.end();
  }
  if (covered < E) {
    return api + ": envs [" + std::to_string(covered) + ", " + std::to_string(E) +
           ") of num_envs = " + std::to_string(E) + " belong to no rank";
  }
  return "";
}
}  // namespace

Slice block_slice(int num_envs, int rank, int size) {
  if (num_envs < 1)
    throw ConfigError("trackgen::mpi::block_slice: num_envs must be >= 1, got " + std::to_string(num_envs));
  if (size < 1) throw ConfigError("trackgen::mpi::block_slice: size must be >= 1, got " + std::to_string(size));
  if (rank < 0 || rank >= size) {
    throw ConfigError("trackgen::mpi::block_slice: rank must be in [0, " + std::to_string(size) + "), got " +
                      std::to_string(rank));
  }
  const int base = num_envs / size, rest = num_envs % size;
  return {rank * base + std::min(rank, rest), base + (rank < rest ? 1 : 0)};
}

void agree(MPI_Comm comm, const std::function<void()>& f) {
  std::string message;
  bool failed = false;
  try {
    f();
  } catch (const std::exception& e) {
    failed = true;
    message = e.what();
  }
  const int size = comm_size(comm);
  int mine = failed ? comm_rank(comm) : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, comm);
  throw CollectiveError("rank " + std::to_string(first) + ": " + message);
}

std::vector<Slice> gather_slices(MPI_Comm comm, int num_envs, const Slice& mine, const std::string& api) {
  const std::array<int, 3> local{num_envs, mine.first, mine.count};
  std::vector<std::array<int, 3>> all(static_cast<std::size_t>(comm_size(comm)));
  MPI_Allgather(local.data(), 3, MPI_INT, all.data(), 3, MPI_INT, comm);
  // Every rank checks the same values, so every rank throws the same message.
  const std::string error = check_slices(all, api);
  if (!error.empty()) throw CollectiveError(error);
  std::vector<Slice> slices;
  for (const auto& a : all) slices.push_back({a[1], a[2]});
  return slices;
}

std::vector<std::int32_t> slice_seeds(const Slice& slice, std::int32_t k, SeedExpansion mode) {
  std::vector<std::int32_t> seeds(static_cast<std::size_t>(std::max(slice.count, 0)));
  for (int i = 0; i < slice.count; ++i) seeds[static_cast<std::size_t>(i)] = expand_seed(k, slice.first + i, mode);
  return seeds;
}

int node_local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  const int r = comm_rank(node);
  MPI_Comm_free(&node);
  return r;
}

}  // namespace trackgen::mpi

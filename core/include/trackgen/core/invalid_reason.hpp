// Why a track is invalid: the bits of Track::invalid_reason[e]
// (docs/algorithms.md#invalid-reasons). A valid track has mask 0; an invalid
// one has at least one bit. The validity stage sets one bit per failed test;
// `truncated` and `too_few_points` are explanations added to an invalid track
// (a truncated track is nearly always invalid for another reason too).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trackgen {

/// The bits of Track::invalid_reason.
struct InvalidReason {
  static constexpr std::int32_t generator = 1 << 0;       ///< the generator flagged the loop (its own check failed)
  static constexpr std::int32_t truncated = 1 << 1;       ///< needed more than N_max points (invalid tracks only)
  static constexpr std::int32_t thickness = 1 << 2;       ///< Menger radius or separation below (1 - relax_tol) hw
  static constexpr std::int32_t crossing = 1 << 3;        ///< loop check: a loop crosses, touches or folds itself
  static constexpr std::int32_t grade = 1 << 4;           ///< |dz| / ds_xy above z_valid_grade somewhere
  static constexpr std::int32_t non_finite = 1 << 5;      ///< a NaN or infinite centre point
  static constexpr std::int32_t too_few_points = 1 << 6;  ///< fewer than 3 points (invalid tracks only)
  static constexpr std::int32_t turning = 1 << 7;         ///< total turning not within turning_tol of 2 pi
  static constexpr std::int32_t width = 1 << 8;           ///< half_width not above w_floor
};

/// Every bit of InvalidReason with its name, in bit order.
inline constexpr std::array<std::pair<std::int32_t, const char*>, 9> invalid_reason_names{{
    {InvalidReason::generator, "generator"},
    {InvalidReason::truncated, "truncated"},
    {InvalidReason::thickness, "thickness"},
    {InvalidReason::crossing, "crossing"},
    {InvalidReason::grade, "grade"},
    {InvalidReason::non_finite, "non_finite"},
    {InvalidReason::too_few_points, "too_few_points"},
    {InvalidReason::turning, "turning"},
    {InvalidReason::width, "width"},
}};

/// The names of the bits set in `mask`, in bit order (empty for 0).
inline std::vector<std::string> reason_names(std::int32_t mask) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : invalid_reason_names) {
    if ((mask & bit) != 0) names.emplace_back(name);
  }
  return names;
}

/// "12 invalid: 9 thickness, 3 crossing" for the masks of a batch (each reason
/// with the number of tracks that have it, most frequent first, ties in bit
/// order; a track may count for several); "0 invalid" when every mask is 0.
inline std::string invalid_summary(const std::vector<std::int32_t>& masks) {
  int invalid = 0;
  std::array<int, invalid_reason_names.size()> counts{};
  for (const std::int32_t m : masks) {
    invalid += m != 0;
    for (std::size_t b = 0; b < counts.size(); ++b) counts[b] += (m & invalid_reason_names[b].first) != 0;
  }
  std::string s = std::to_string(invalid) + " invalid";
  std::vector<std::size_t> order;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (counts[b] > 0) order.push_back(b);
  }
  for (std::size_t i = 1; i < order.size(); ++i) {  // stable insertion sort, most frequent first
    for (std::size_t j = i; j > 0 && counts[order[j]] > counts[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    s += (i == 0 ? ": " : ", ") + std::to_string(counts[order[i]]) + " " + invalid_reason_names[order[i]].second;
  }
  return s;
}

}  // namespace trackgen

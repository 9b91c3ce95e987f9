// The border grid's build (see detail/border_grid.hpp and
// docs/algorithms.md#border-grid).
#include <trackgen/runtime/detail/border_grid.hpp>
#include <trackgen/runtime/detail/common.hpp>

namespace trackgen::detail {
namespace {

/// The first column whose widened region reaches x from the left
/// (x <= x0(c + 1) + delta), gx if none.
KOKKOS_INLINE_FUNCTION int first_column_reaching(const GridHeader& g, float x) {
  int c = clamped_column(g, x);
  while (c > 0 && x <= cell_x0(g, c) + g.delta) --c;
  while (c < g.gx && !(x <= cell_x0(g, c + 1) + g.delta)) ++c;
  return c;
}
/// The last column whose widened region reaches x from the right
/// (x >= x0(c) - delta), -1 if none.
KOKKOS_INLINE_FUNCTION int last_column_reaching(const GridHeader& g, float x) {
  int c = clamped_column(g, x);
  while (c < g.gx - 1 && x >= cell_x0(g, c + 1) - g.delta) ++c;
  while (c >= 0 && !(x >= cell_x0(g, c) - g.delta)) --c;
  return c;
}
KOKKOS_INLINE_FUNCTION int first_row_reaching(const GridHeader& g, float y) {
  int c = clamped_row(g, y);
  while (c > 0 && y <= cell_y0(g, c) + g.delta) --c;
  while (c < g.gy && !(y <= cell_y0(g, c + 1) + g.delta)) ++c;
  return c;
}
KOKKOS_INLINE_FUNCTION int last_row_reaching(const GridHeader& g, float y) {
  int c = clamped_row(g, y);
  while (c < g.gy - 1 && y >= cell_y0(g, c + 1) - g.delta) ++c;
  while (c >= 0 && !(y >= cell_y0(g, c) - g.delta)) --c;
  return c;
}

template <class Space>
struct BuildBorderGrid {
  Track<typename Space::memory_space> track;
  BorderGrid<Space> grid;
  DView<std::int32_t, Space> mask;

  /// Calls f(cell) for every cell whose widened region the bounding box of
  /// [a, b] meets.
  template <class F>
  KOKKOS_FUNCTION static void for_cells(const GridHeader& g, Vec2f a, Vec2f b, const F& f) {
    const ChunkBox s = segment_box(a, b);
    const int x0 = first_column_reaching(g, s.lo.x), x1 = last_column_reaching(g, s.hi.x);
    const int y0 = first_row_reaching(g, s.lo.y), y1 = last_row_reaching(g, s.hi.y);
    for (int cy = y0; cy <= y1; ++cy) {
      for (int cx = x0; cx <= x1; ++cx) f(cy * g.gx + cx);
    }
  }

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n_max = track.n_max();
    const int m = kmath::clamp(track.count(e), 0, n_max);
    GridHeader g;
    const std::uint32_t stamp = grid.header(e).stamp + 1;  // a new build: what queries kept of the old one is stale
    g.stamp = stamp != 0 ? stamp : 1;
    if (m < 3) {
      grid.header(e) = g;
      return;
    }
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const Vec3f* const borders[2] = {track.inner.data() + base, track.outer.data() + base};
    ChunkBox box{geom::xy(borders[0][0]), geom::xy(borders[0][0])};
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < m; ++i) {
        const Vec2f q = geom::xy(borders[b][i]);
        box.lo = Vec2f{kmath::min(box.lo.x, q.x), kmath::min(box.lo.y, q.y)};
        box.hi = Vec2f{kmath::max(box.hi.x, q.x), kmath::max(box.hi.y, q.y)};
        if (!is_finite(q)) box.lo.x = nanf();  // stays NaN: no grid
      }
    }
    const float w = box.hi.x - box.lo.x, ht = box.hi.y - box.lo.y, span = kmath::max(w, ht);
    const float big = kmath::max(kmath::max(kmath::fabs(box.lo.x), kmath::fabs(box.lo.y)),
                                 kmath::max(kmath::fabs(box.hi.x), kmath::fabs(box.hi.y)));
    g.tol = 0x1p-16f * (big + span);  // NaN or inf for a non-finite border: no pruning
    if (!kmath::isfinite(box.lo.x) || !kmath::isfinite(g.tol) || !(span > 0.0f) || !(span < 1e30f)) {
      g.gx = 0;
      grid.header(e) = g;
      return;
    }
    // Square cells over the box padded by 1/64 of its larger side; delta far
    // above the rounding of coordinates of this magnitude, far below a cell.
    const float pad = 0x1p-6f * span, side = static_cast<float>(grid.side);
    g.lo = Vec2f{box.lo.x - pad, box.lo.y - pad};
    g.h = (span + 2.0f * pad) / side * (1.0f + 0x1p-10f);
    g.inv_h = 1.0f / g.h;
    g.gx = kmath::min(grid.side, static_cast<int>((w + 2.0f * pad) / g.h) + 1);
    g.gy = kmath::min(grid.side, static_cast<int>((ht + 2.0f * pad) / g.h) + 1);
    g.delta = 0x1p-14f * (big + span);
    std::uint32_t* const cells = grid.cells.data() + static_cast<std::size_t>(e) * (grid.side * grid.side + 1);
    std::uint16_t* const refs = grid.refs.data() + static_cast<std::size_t>(e) * grid.capacity;
    const int n_cells = g.gx * g.gy;
    const auto segment = [&](int b, int i) {
      return Kokkos::pair<Vec2f, Vec2f>(geom::xy(borders[b][i]), geom::xy(borders[b][i + 1 < m ? i + 1 : 0]));
    };
    // Count, then place (in order of border and index), each cell's segments.
    for (int c = 0; c <= n_cells; ++c) cells[c] = 0;
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < m; ++i) {
        const auto s = segment(b, i);
        for_cells(g, s.first, s.second, [&](int c) { ++cells[c]; });
      }
    }
    std::uint32_t total = 0;
    for (int c = 0; c < n_cells; ++c) {
      const std::uint32_t n = cells[c];
      cells[c] = total;
      total += n;
    }
    if (total > static_cast<std::uint32_t>(grid.capacity)) {  // an odd track: no grid
      g.gx = 0;
      grid.header(e) = g;
      return;
    }
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < m; ++i) {
        const auto s = segment(b, i);
        for_cells(g, s.first, s.second, [&](int c) { refs[cells[c]++] = grid_ref(b, i); });
      }
    }
    for (int c = n_cells; c > 0; --c) cells[c] = cells[c - 1] << 2;  // cells[c] was the end of cell c
    cells[0] = 0;
    // Parity bits: segment s of border b crossing the line x* of column cx
    // flips bit b of every cell of that column lying wholly below it
    // (y0(cy + 1) + delta < min y): marked at the highest such row, then
    // accumulated down each column.
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < m; ++i) {
        const auto s = segment(b, i);
        const ChunkBox sb = segment_box(s.first, s.second);
        if (!(sb.lo.x < sb.hi.x)) continue;
        int top = clamped_row(g, sb.lo.y);
        while (top < g.gy - 1 && cell_y0(g, top + 2) + g.delta < sb.lo.y) ++top;
        while (top >= 0 && !(cell_y0(g, top + 1) + g.delta < sb.lo.y)) --top;
        if (top < 0) continue;
        for (int cx = first_column_reaching(g, sb.lo.x); cx < g.gx && parity_x(g, cx) < sb.hi.x; ++cx) {
          cells[top * g.gx + cx] ^= static_cast<std::uint32_t>(1 << b);
        }
      }
    }
    for (int cx = 0; cx < g.gx; ++cx) {
      std::uint32_t acc = 0;
      for (int cy = g.gy - 1; cy >= 0; --cy) {
        std::uint32_t& c = cells[cy * g.gx + cx];
        acc ^= c & 3u;
        c = (c & ~3u) | acc;
      }
    }
    grid.header(e) = g;
  }
};

}  // namespace

template <class Space>
BorderGrid<Space> BorderGrid<Space>::clone() const {
  BorderGrid c = *this;
  c.header = clone_view(header);
  c.cells = clone_view(cells);
  c.refs = clone_view(refs);
  return c;
}

std::size_t border_grid_bytes(std::size_t num_envs, int n_max) {
  const std::size_t side = static_cast<std::size_t>(border_grid_side(n_max));
  return num_envs * (sizeof(GridHeader) + sizeof(std::uint32_t) * (side * side + 1) +
                     sizeof(std::uint16_t) * static_cast<std::size_t>(border_grid_capacity(n_max)));
}

template <class Space>
BorderGrid<Space> make_border_grid(const Space& space, int num_envs, int n_max) {
  BorderGrid<Space> g;
  g.side = border_grid_side(n_max);
  g.capacity = border_grid_capacity(n_max);
  const std::size_t E = static_cast<std::size_t>(num_envs);
  g.header = runtime_view<GridHeader>(space, "border_grid_header", E);
  g.cells = runtime_view<std::uint32_t>(space, "border_grid_cells", E * (g.side * g.side + 1));
  g.refs = runtime_view<std::uint16_t>(space, "border_grid_refs", E * g.capacity);
  return g;
}

template <class Space>
void build_border_grid(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                       const BorderGrid<Space>& grid, const DView<std::int32_t, Space>& mask) {
  ctx.for_each("TrackGen::runtime::border_grid::build", grid.header.extent(0),
               BuildBorderGrid<Space>{track, grid, mask});
}

#define TRACKGEN_INSTANTIATE_BORDER_GRID(S)                                                           \
  template struct BorderGrid<S>;                                                                      \
  template BorderGrid<S> make_border_grid<S>(const S&, int, int);                                     \
  template void build_border_grid<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&, \
                                     const BorderGrid<S>&, const DView<std::int32_t, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_BORDER_GRID)

}  // namespace trackgen::detail

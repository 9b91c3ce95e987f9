// CollisionChecker: oriented boxes (cars) against the drivable band of a Track,
// the region inside the outer border and outside the inner one, in plan view.
//
// Inputs, [E*B] each (B = max_boxes boxes per env, box b of env e at e*B + b):
// position (Vec3f; z ignored; a non-finite position, NaN or inf, marks an
// inactive slot: not out of bounds, NaN geometry, boundary -1),
// orientation (Quatf; its yaw about +z is used), half_extents (Vec2f).
//
// Two backends, one result (BoxContact):
//  - segments (exact, one thread per box): every corner is classified by the
//    ray-crossing rule against both borders (inside the band: an odd count for
//    the outer border, an even one for the inner), and the box's distance to
//    every border segment is taken (corners to the segment, the segment's start
//    vertex to the solid box, 0 when the segment cuts the box). The box is out
//    of bounds when a corner is outside the band or a border segment cuts it.
//    distance is the clearance to the nearest segment when in bounds, minus the
//    deepest outside corner's distance to the border it violates when out (0
//    when only an edge crosses a border); nearest is the closest border point,
//    normal the unit normal of that segment pointing into the band (towards the
//    centerline point of the segment's index), boundary 0 (inner) or 1 (outer).
//    A box with a non-finite corner (orientation or half extents), or so far
//    away that no squared distance is finite, is out of bounds without
//    geometry (NaN, boundary -1). The query reads a border grid per env
//    (docs/algorithms.md#border-grid), built at construction: its cost per box
//    does not grow with the track's point count, and its contacts are those of
//    reading every segment. Each box keeps what its last query read (its near
//    set, 1016 bytes): a box that moved little since reads only that. After the
//    Track changes, bake() rebuilds the grid and makes those sets stale
//    (Course does it on every generation).
//  - sdf (approximate, a baked grid per env; see grid.hpp and
//    SignedDistanceField): the field is bilinearly sampled at the box centre and
//    its 4 corners; the minimum is the distance (negative: out of bounds), the
//    field's gradient (central differences, one texel) the normal, nearest =
//    sample point - distance * normal, boundary the border of the texel nearest
//    the sample point; a box with a non-finite corner is out of bounds without
//    geometry, a box outside the grid reads its edge texels. bake() bakes it again after the Track changes (from the
//    border grid: every texel reads only the segments near it).
// Envs with fewer than 3 track points report every active box out of bounds
// with NaN geometry and boundary -1 (conservative); results for invalid tracks
// are otherwise unspecified, never out of bounds of any View.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/geometry.hpp>
#include <trackgen/runtime/grid.hpp>
#include <trackgen/runtime/inputs.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace trackgen {

namespace detail {
template <class Space>
struct BorderGrid;  // internal: trackgen/runtime/detail/border_grid.hpp
template <class Space>
struct NearSets;  // internal: trackgen/runtime/detail/collision_kernels.hpp
}  // namespace detail

/// The collision backend.
enum class CollisionMethod {
  segments,  ///< exact: the border segments near each box (a border grid per env)
  sdf,       ///< a baked signed distance field per env, sampled per box
};

/// The JSON names of the methods (CourseConfig.collision).
template <>
struct SettingNames<CollisionMethod> {
  static constexpr std::array<SettingName<CollisionMethod>, 2> values{
      {{CollisionMethod::segments, "segments"}, {CollisionMethod::sdf, "sdf"}}};
};

/// "segments" or "sdf" (its SettingNames name; "?" for another value).
const char* to_string(CollisionMethod m);

/// Contacts of every box, [E*B] each, overwritten in place by every query.
template <class Space = Kokkos::DefaultExecutionSpace>
struct BoxContact {
  DView<std::int32_t, Space> oob;       ///< 1 if the box leaves the drivable band (or cuts a border)
  DView<float, Space> distance;         ///< clearance (> 0 in bounds), - deepest penetration when out
  DView<Vec2f, Space> nearest;          ///< closest border point
  DView<Vec2f, Space> normal;           ///< unit normal there, pointing into the band
  DView<std::int32_t, Space> boundary;  ///< 0 inner, 1 outer, -1 inactive or degenerate

  /// An independent deep copy.
  BoxContact clone() const;
};

/// A baked signed distance field per env: phi > 0 inside the band (distance
/// to the nearest border), < 0 outside; boundary: 0 where the inner border is
/// the nearer one, 1 for the outer, -1 for envs with fewer than 3 points (phi
/// NaN). Memory: E * R^2 * 5 bytes.
template <class Space = Kokkos::DefaultExecutionSpace>
struct SignedDistanceField {
  DView<float, Space> phi;             ///< [E*R*R] row-major per env
  DView<std::int8_t, Space> boundary;  ///< [E*R*R]
  DView<Vec2f, Space> lo, hi;          ///< [E] the grid's box
  int resolution = 0;                  ///< R

  /// An independent deep copy.
  SignedDistanceField clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class CollisionChecker {
 public:
  using track_type = Track<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;
  using Vec3View = DView<Vec3f, Space>;
  using QuatView = DView<Quatf, Space>;
  using Vec2View = DView<Vec2f, Space>;

  /// A checker of `max_boxes` (>= 1) boxes per env against `track` (aliased),
  /// on `space`. It allocates and builds the border grid of every env here,
  /// and the sdf backend its field (`grid`), baked once here. ConfigError for
  /// an invalid argument, or when estimate_bytes() exceeds
  /// memory_limit_bytes() (saying how many envs fit), before any allocation.
  CollisionChecker(Space space, const track_type& track, int max_boxes,
                   CollisionMethod method = CollisionMethod::segments, const GridOptions& grid = {});

  /// Bytes a checker of `num_envs` envs of tracks of `n_max` points allocates:
  /// contacts, border grids, for the segments backend what it keeps of each
  /// box between queries (1016 bytes a box), and for the sdf backend the field.
  static std::size_t estimate_bytes(int num_envs, int n_max, int max_boxes, CollisionMethod method,
                                    const GridOptions& grid = {});

  /// Bound mode: binds the [E*B] inputs every query() without arguments reads.
  void bind_inputs(const Vec3View& position, const QuatView& orientation, const Vec2View& half_extents);

  /// Bound-mode query on the checker's instance; returns the contacts (the
  /// same object every call).
  const BoxContact<Space>& query();
  /// Bound-mode query on `ctx` (recorded when ctx records).
  const BoxContact<Space>& query(const LaunchContext<Space>& ctx);
  /// Per-call mode. ConfigError in bound mode or for a View of another extent.
  const BoxContact<Space>& query(const Vec3View& position, const QuatView& orientation, const Vec2View& half_extents);
  /// Per-call mode on `ctx`.
  const BoxContact<Space>& query(const LaunchContext<Space>& ctx, const Vec3View& position, const QuatView& orientation,
                                 const Vec2View& half_extents);

  /// Rebuilds the border grids from the Track (after it changed), and for the
  /// sdf backend bakes the field again.
  void bake();
  /// Same on `ctx`, only for envs with mask[e] != 0 when `mask` is given.
  void bake(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The contacts of the last query.
  const BoxContact<Space>& contacts() const { return contacts_; }
  /// The baked field (sdf backend; empty Views for segments).
  const SignedDistanceField<Space>& sdf() const { return sdf_; }
  /// The border grids (internal: trackgen/runtime/detail/border_grid.hpp,
  /// docs/algorithms.md#border-grid).
  const detail::BorderGrid<Space>& border_grid() const { return *border_grid_; }
  /// What the segments backend keeps of each box between queries (internal:
  /// trackgen/runtime/detail/collision_kernels.hpp, docs/algorithms.md#collision;
  /// an empty View for sdf).
  const detail::NearSets<Space>& near_sets() const { return *near_sets_; }
  /// The backend.
  CollisionMethod method() const { return method_; }
  /// Boxes per env B.
  int max_boxes() const { return max_boxes_; }
  /// Envs E (the Track's).
  int num_envs() const { return track_.num_envs(); }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  const BoxContact<Space>& launch_query(const LaunchContext<Space>& ctx, const BoxInputs<Space>& in);

  LaunchContext<Space> ctx_;
  track_type track_;
  int max_boxes_;
  CollisionMethod method_;
  GridOptions grid_;
  BoxContact<Space> contacts_;
  SignedDistanceField<Space> sdf_;
  // Shared, as the Views are: a copy of the checker reads the same grids.
  std::shared_ptr<detail::BorderGrid<Space>> border_grid_;
  std::shared_ptr<detail::NearSets<Space>> near_sets_;  // segments backend: what queries keep per box
  BoundInputs<BoxInputs<Space>> inputs_;
};

}  // namespace trackgen

// DiscChecker: oriented boxes against disc obstacles of one shared radius
// (cones, posts), in plan view.
//
// discs is [E*D] (D slots per env; a NaN slot is skipped), aliased, so a
// producer rewriting it in place is seen by the next query. With a count View
// ([E] int32, aliased) env e uses its first count[e] slots, otherwise all D.
// Per box (inputs as CollisionChecker: [E*B] position, orientation,
// half_extents): for each disc, penetration = radius - distance(disc centre,
// solid box); a hit when >= 0; the deepest wins (the lowest index on ties).
// depth saturates at radius when the disc's centre is inside the box; nearest
// is the point of the disc's rim towards the box (the centre itself when it is
// inside). Gate posts: interleave a gate sequence's left and right ends,
// posts[2i] = left[i], posts[2i+1] = right[i]; then gate = disc / 2.
#pragma once

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/inputs.hpp>

#include <string>

namespace trackgen {

/// Disc contacts of every box, [E*B] each, overwritten in place by every query.
template <class Space = Kokkos::DefaultExecutionSpace>
struct DiscContact {
  DView<std::int32_t, Space> hit;   ///< 1 if some disc touches the box
  DView<std::int32_t, Space> disc;  ///< slot (within the env) of the deepest disc, -1 if none
  DView<float, Space> depth;        ///< its penetration (>= 0; 0 without a hit)
  DView<Vec2f, Space> nearest;      ///< its rim point towards the box (NaN without a hit)

  /// An independent deep copy.
  DiscContact clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class DiscChecker {
 public:
  using IntView = DView<std::int32_t, Space>;
  using Vec3View = DView<Vec3f, Space>;
  using QuatView = DView<Quatf, Space>;
  using Vec2View = DView<Vec2f, Space>;

  /// `num_envs` envs (>= 1) of D = discs.extent(0) / num_envs slots each (the
  /// extent must divide), `radius` > 0, `max_boxes` >= 1 boxes per env.
  DiscChecker(Space space, const Vec3View& discs, float radius, int max_boxes, int num_envs);
  /// Same with per-env counts: E = count.extent(0) envs, env e using its first
  /// count[e] slots (clamped to [0, D]).
  DiscChecker(Space space, const Vec3View& discs, float radius, int max_boxes, const IntView& count);

  /// Bound mode: binds the [E*B] inputs every query() without arguments reads.
  void bind_inputs(const Vec3View& position, const QuatView& orientation, const Vec2View& half_extents);
  /// Bound-mode query on the checker's instance (the same result object every call).
  const DiscContact<Space>& query();
  /// Bound-mode query on `ctx`.
  const DiscContact<Space>& query(const LaunchContext<Space>& ctx);
  /// Per-call mode. ConfigError in bound mode or for a View of another extent.
  const DiscContact<Space>& query(const Vec3View& position, const QuatView& orientation, const Vec2View& half_extents);
  /// Per-call mode on `ctx`.
  const DiscContact<Space>& query(const LaunchContext<Space>& ctx, const Vec3View& position,
                                  const QuatView& orientation, const Vec2View& half_extents);

  /// The contacts of the last query.
  const DiscContact<Space>& contacts() const { return contacts_; }
  /// Envs E.
  int num_envs() const { return num_envs_; }
  /// Disc slots per env D.
  int slots() const { return slots_; }
  /// Boxes per env B.
  int max_boxes() const { return max_boxes_; }
  /// The discs' radius.
  float radius() const { return radius_; }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  const DiscContact<Space>& launch_query(const LaunchContext<Space>& ctx,
                                         const BoxInputs<Space>& in);

  LaunchContext<Space> ctx_;
  Vec3View discs_;
  IntView count_;
  float radius_;
  int max_boxes_;
  int num_envs_;
  int slots_;
  DiscContact<Space> contacts_;
  BoundInputs<BoxInputs<Space>> inputs_;
};

/// The gate posts recipe on `ctx`: posts[e*2G + 2i] = gates.left[e*G + i],
/// posts[e*2G + 2i + 1] = gates.right[e*G + i] ([E*2G], NaN where the gates
/// are padding), for the envs with mask[e] != 0 when `mask` ([E] int32) is
/// given. A DiscChecker on posts reports gate = disc / 2.
template <class Space>
void gate_posts(const LaunchContext<Space>& ctx, const GateSequence<typename Space::memory_space>& gates,
                const DView<Vec3f, Space>& posts, const DView<std::int32_t, Space>& mask = DView<std::int32_t, Space>());

}  // namespace trackgen

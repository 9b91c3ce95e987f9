// Device geometry of the runtime utilities: quaternions, oriented boxes in the
// plane, the half-open ray-crossing rule, box clipping, and the checkpoint
// plane-pass test. Header-only KOKKOS_INLINE_FUNCTIONs, usable in a caller's
// own kernels (an agent model placing its box, a reward shaping term).
#pragma once

#include <trackgen/core/quat.hpp>

namespace trackgen {
namespace geom {

/// The rotation by `yaw` about +z as a quaternion.
KOKKOS_INLINE_FUNCTION Quatf quat_from_yaw(float yaw) {
  return {0.0f, 0.0f, kmath::sin(0.5f * yaw), kmath::cos(0.5f * yaw)};
}

/// Yaw (rotation about +z) of `q`: atan2(2 (w z + x y), 1 - 2 (y^2 + z^2)).
KOKKOS_INLINE_FUNCTION float yaw_of(Quatf q) {
  return kmath::atan2(2.0f * (q.w * q.z + q.x * q.y), 1.0f - 2.0f * (q.y * q.y + q.z * q.z));
}

/// A solid box in the plane: centre, unit axes (ux along the box's x) and half extents.
struct Box2 {
  Vec2f center, ux, uy, half;
};

/// The box of half extents `half` centred at `center`, rotated by `yaw`.
KOKKOS_INLINE_FUNCTION Box2 make_box(Vec2f center, float yaw, Vec2f half) {
  const float c = kmath::cos(yaw), s = kmath::sin(yaw);
  return {center, Vec2f{c, s}, Vec2f{-s, c}, half};
}

/// Corner k of the box, counter-clockwise in the box frame: k = 0 (+,+),
/// 1 (-,+), 2 (-,-), 3 (+,-): center + ux (sx half.x) + uy (sy half.y).
KOKKOS_INLINE_FUNCTION Vec2f box_corner(const Box2& b, int k) {
  const float sx = (k == 0 || k == 3) ? 1.0f : -1.0f;
  const float sy = k < 2 ? 1.0f : -1.0f;
  return b.center + (sx * b.half.x) * b.ux + (sy * b.half.y) * b.uy;
}

/// `p` in the box frame (coordinates along ux and uy from the centre).
KOKKOS_INLINE_FUNCTION Vec2f to_box_frame(const Box2& b, Vec2f p) {
  const Vec2f d = p - b.center;
  return {dot(d, b.ux), dot(d, b.uy)};
}

/// Distance from `p` to the solid box: |max(|q| - half, 0)| in the box frame q
/// (0 inside).
KOKKOS_INLINE_FUNCTION float point_box_distance(Vec2f p, const Box2& b) {
  const Vec2f q = to_box_frame(b, p);
  const float dx = kmath::max(kmath::fabs(q.x) - b.half.x, 0.0f);
  const float dy = kmath::max(kmath::fabs(q.y) - b.half.y, 0.0f);
  return kmath::sqrt(dx * dx + dy * dy);
}

/// The point of the solid box closest to `p` (p itself when inside).
KOKKOS_INLINE_FUNCTION Vec2f box_closest_point(Vec2f p, const Box2& b) {
  const Vec2f q = to_box_frame(b, p);
  const float x = kmath::clamp(q.x, -b.half.x, b.half.x), y = kmath::clamp(q.y, -b.half.y, b.half.y);
  return b.center + x * b.ux + y * b.uy;
}

/// Whether segment [a, b] meets the solid box (Liang-Barsky clipping against
/// both slabs of the box frame; a direction component below 1e-12 rejects the
/// segment when it lies outside that slab).
KOKKOS_INLINE_FUNCTION bool segment_hits_box(Vec2f a, Vec2f b, const Box2& box) {
  const Vec2f p = to_box_frame(box, a);
  const Vec2f d = to_box_frame(box, b) - p;
  float t0 = 0.0f, t1 = 1.0f;
  const float ps[2] = {p.x, p.y}, ds[2] = {d.x, d.y}, hs[2] = {box.half.x, box.half.y};
  for (int k = 0; k < 2; ++k) {
    if (kmath::fabs(ds[k]) < 1e-12f) {
      if (kmath::fabs(ps[k]) > hs[k]) return false;
      continue;
    }
    float lo = (-hs[k] - ps[k]) / ds[k], hi = (hs[k] - ps[k]) / ds[k];
    if (lo > hi) {
      const float t = lo;
      lo = hi;
      hi = t;
    }
    t0 = kmath::max(t0, lo);
    t1 = kmath::min(t1, hi);
    if (t0 > t1) return false;
  }
  return true;
}

/// The half-open ray-crossing rule of point-in-polygon tests: the ray from `p`
/// towards +x crosses segment [a, b] iff (a.y > p.y) != (b.y > p.y) and p.x is
/// left of the crossing point. A point is inside a closed polyline iff it
/// crosses an odd number of its segments.
KOKKOS_INLINE_FUNCTION bool ray_crosses(Vec2f p, Vec2f a, Vec2f b) {
  if ((a.y > p.y) == (b.y > p.y)) return false;
  const float x_hit = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
  return p.x < x_hit;
}

/// Closest point to `p` on the 3D segment [a, b] as the clamped parameter u in
/// [0, 1] (0 for a degenerate segment, |ab|^2 <= 1e-12).
KOKKOS_INLINE_FUNCTION float segment_param(Vec3f p, Vec3f a, Vec3f b) {
  const Vec3f ab = b - a;
  const float l2 = dot(ab, ab);
  if (l2 <= 1e-12f) return 0.0f;
  return kmath::clamp(dot(p - a, ab) / l2, 0.0f, 1.0f);
}

/// a + t (b - a).
KOKKOS_INLINE_FUNCTION Vec3f lerp(Vec3f a, Vec3f b, float t) { return a + t * (b - a); }

/// Plan-view part (x, y) of a 3D point.
KOKKOS_INLINE_FUNCTION Vec2f xy(Vec3f p) { return {p.x, p.y}; }

/// The axes plane_pass measures a crossing point along: u_axis = (r - l) /
/// |r - l| (0 if |r - l| < 1e-12), v_axis = safe_norm3(u_axis x fwd), and the
/// width w = |r - l|.
struct GateAxes {
  Vec3f u_axis, v_axis;
  float w = 0.0f;
};

KOKKOS_INLINE_FUNCTION GateAxes gate_axes(Vec3f fwd, Vec3f l, Vec3f r) {
  const Vec3f rl = r - l;
  const float w = length(rl);
  const Vec3f u_axis = w < 1e-12f ? Vec3f{0.0f, 0.0f, 0.0f} : rl * (1.0f / w);
  return {u_axis, safe_norm3(cross(u_axis, fwd)), w};
}

/// The plane half of plane_pass for a gate with middle `mid` (computed as
/// 0.5f * (l + r)) and normal `fwd`: with d0 = (prev - mid) . fwd and
/// d1 = (pos - mid) . fwd, +1 when d0 < 0 <= d1, -1 when d0 > 0 >= d1, else 0;
/// `t` = d0 / (d0 - d1) where the motion meets the plane (set when non-zero).
KOKKOS_INLINE_FUNCTION int plane_cross(Vec3f prev, Vec3f pos, Vec3f mid, Vec3f fwd, float& t) {
  const float d0 = dot(prev - mid, fwd), d1 = dot(pos - mid, fwd);
  int dir = 0;
  if (d0 < 0.0f && d1 >= 0.0f) dir = 1;
  if (d0 > 0.0f && d1 <= 0.0f) dir = -1;
  if (dir != 0) t = d0 / (d0 - d1);
  return dir;
}

/// The opening half of plane_pass: whether the motion's point at `t` lies
/// within the gate (fwd, l, r, v_half) of middle `mid`.
KOKKOS_INLINE_FUNCTION bool within_gate(Vec3f prev, Vec3f pos, float t, Vec3f mid, Vec3f fwd, Vec3f l, Vec3f r,
                                        float v_half) {
  const Vec3f pi = lerp(prev, pos, t);
  const GateAxes a = gate_axes(fwd, l, r);
  const float u = dot(pi - mid, a.u_axis);
  const float v = dot(pi - mid, a.v_axis);
  return kmath::fabs(u) <= 0.5f * a.w && kmath::fabs(v) <= v_half;
}

/// Pass test of the motion prev -> pos through a gate: the plane through the
/// gate's middle mid = (l + r) / 2 with normal `fwd`, bounded by the posts `l`
/// and `r` and a vertical half opening `v_half`.
/// d0 = (prev - mid) . fwd, d1 = (pos - mid) . fwd: a forward pass when
/// d0 < 0 <= d1 (returns +1), a backward one when d0 > 0 >= d1 (-1), else 0;
/// it counts only if the crossing point pi (at t = d0 / (d0 - d1)) lies within
/// the gate: |u| <= w / 2 along u_axis and |v| <= v_half along v_axis
/// (gate_axes). plane_cross and within_gate are its two halves.
KOKKOS_INLINE_FUNCTION int plane_pass(Vec3f prev, Vec3f pos, Vec3f fwd, Vec3f l, Vec3f r, float v_half) {
  const Vec3f mid = 0.5f * (l + r);
  float t = 0.0f;
  const int dir = plane_cross(prev, pos, mid, fwd, t);
  return dir != 0 && within_gate(prev, pos, t, mid, fwd, l, r, v_half) ? dir : 0;
}

/// A lower bound on the distance from `c` to every crossing point plane_pass
/// accepts for the gate (fwd, l, r, v_half): a pass needs a point of the
/// motion on the plane (at least |(c - mid) . fwd| / |fwd| from c) within both
/// slabs (at least |(c - mid) . u_axis| - w / 2 and |(c - mid) . v_axis| -
/// v_half from c), so a motion whose ends both lie strictly within this
/// distance of c cannot pass. The largest of the three, less a tolerance of
/// 1e-4 (1 + the coordinates' magnitudes + w) for the float rounding of both
/// computations, at least 0 (also for non-finite input).
KOKKOS_INLINE_FUNCTION float gate_reach(Vec3f c, Vec3f fwd, Vec3f l, Vec3f r, float v_half) {
  const Vec3f mid = 0.5f * (l + r), rel = c - mid;
  const GateAxes a = gate_axes(fwd, l, r);
  const float f = length(fwd);
  const float along = f > 0.0f ? kmath::fabs(dot(rel, fwd)) / f : 0.0f;
  const float across = kmath::fabs(dot(rel, a.u_axis)) - 0.5f * a.w;
  const float up = kmath::fabs(dot(rel, a.v_axis)) - v_half;
  const float scale = 1.0f + kmath::fabs(c.x) + kmath::fabs(c.y) + kmath::fabs(c.z) + kmath::fabs(mid.x) +
                      kmath::fabs(mid.y) + kmath::fabs(mid.z) + a.w;
  const float reach = kmath::max(along, kmath::max(across, up)) - 1e-4f * scale;
  return reach > 0.0f ? reach : 0.0f;
}

}  // namespace geom
}  // namespace trackgen

// Unit quaternions and the roll-free frames of gates (docs/algorithms.md#gate-frames).
// Header-only KOKKOS_INLINE_FUNCTIONs, host and device.
#pragma once

#include <trackgen/core/geometry.hpp>

namespace trackgen {

/// A unit quaternion (x, y, z, w), w the scalar part. Packed, 16 bytes.
struct Quatf {
  float x, y, z, w;
};

/// A quaternion of four NaNs (the padding of per-gate orientations).
KOKKOS_INLINE_FUNCTION constexpr Quatf nan_quat() { return {nanf(), nanf(), nanf(), nanf()}; }

/// Whether every component of `q` is finite.
KOKKOS_INLINE_FUNCTION bool is_finite(Quatf q) {
  return kmath::isfinite(q.x) && kmath::isfinite(q.y) && kmath::isfinite(q.z) && kmath::isfinite(q.w);
}

namespace geom {

/// `v` rotated by the unit quaternion `q`: v + 2w (u x v) + 2 u x (u x v), u = (x, y, z).
KOKKOS_INLINE_FUNCTION Vec3f rotate(Quatf q, Vec3f v) {
  const Vec3f u{q.x, q.y, q.z};
  const Vec3f t = 2.0f * cross(u, v);
  return v + q.w * t + cross(u, t);
}

/// `v` rotated by the inverse of the unit quaternion `q`.
KOKKOS_INLINE_FUNCTION Vec3f rotate_inverse(Quatf q, Vec3f v) { return rotate(Quatf{-q.x, -q.y, -q.z, q.w}, v); }

/// The quaternion of the rotation matrix with columns a, b, c (a proper
/// rotation): the trace branch when the trace is >= 0, otherwise the branch of
/// the largest diagonal entry.
KOKKOS_INLINE_FUNCTION Quatf quat_from_columns(Vec3f a, Vec3f b, Vec3f c) {
  // m(row, col): column a = (m00, m10, m20), b = (m01, m11, m21), c = (m02, m12, m22).
  const float m00 = a.x, m10 = a.y, m20 = a.z, m01 = b.x, m11 = b.y, m21 = b.z, m02 = c.x, m12 = c.y, m22 = c.z;
  const float tr = m00 + m11 + m22;
  if (tr >= 0.0f) {
    const float h = kmath::sqrt(tr + 1.0f), s = 0.5f / h;
    return {(m21 - m12) * s, (m02 - m20) * s, (m10 - m01) * s, 0.5f * h};
  }
  if (m00 >= m11 && m00 >= m22) {
    const float h = kmath::sqrt(m00 - m11 - m22 + 1.0f), s = 0.5f / h;
    return {0.5f * h, (m01 + m10) * s, (m20 + m02) * s, (m21 - m12) * s};
  }
  if (m11 >= m22) {
    const float h = kmath::sqrt(m11 - m22 - m00 + 1.0f), s = 0.5f / h;
    return {(m01 + m10) * s, 0.5f * h, (m12 + m21) * s, (m02 - m20) * s};
  }
  const float h = kmath::sqrt(m22 - m00 - m11 + 1.0f), s = 0.5f / h;
  return {(m20 + m02) * s, (m12 + m21) * s, 0.5f * h, (m10 - m01) * s};
}

/// The roll-free frame of a unit forward `f` that is not vertical: left =
/// normalize(up_w x f) with up_w = +z (horizontal), up = f x left; the
/// quaternion of the rotation with columns (f, left, up), so local x is
/// forward, y left and z up.
KOKKOS_INLINE_FUNCTION Quatf frame_quat(Vec3f f) {
  const Vec3f left = safe_norm3(Vec3f{-f.y, f.x, 0.0f});
  const Vec3f up = cross(f, left);
  return quat_from_columns(f, left, up);
}

}  // namespace geom
}  // namespace trackgen

// Plain 2D/3D float vectors with device-callable math. Packed (8 / 12 bytes),
// trivially copyable, so a View<Vec2f*> is a contiguous [x0,y0,x1,y1,...] buffer.
#pragma once

#include <trackgen/core/compat.hpp>

namespace trackgen {

struct Vec2f {
  float x, y;
};

struct Vec3f {
  float x, y, z;
};

KOKKOS_INLINE_FUNCTION constexpr Vec2f operator+(Vec2f a, Vec2f b) { return {a.x + b.x, a.y + b.y}; }
KOKKOS_INLINE_FUNCTION constexpr Vec2f operator-(Vec2f a, Vec2f b) { return {a.x - b.x, a.y - b.y}; }
KOKKOS_INLINE_FUNCTION constexpr Vec2f operator-(Vec2f a) { return {-a.x, -a.y}; }
KOKKOS_INLINE_FUNCTION constexpr Vec2f operator*(float s, Vec2f a) { return {s * a.x, s * a.y}; }
KOKKOS_INLINE_FUNCTION constexpr Vec2f operator*(Vec2f a, float s) { return {a.x * s, a.y * s}; }
KOKKOS_INLINE_FUNCTION constexpr Vec2f operator/(Vec2f a, float s) { return {a.x / s, a.y / s}; }
KOKKOS_INLINE_FUNCTION Vec2f& operator+=(Vec2f& a, Vec2f b) {
  a.x += b.x;
  a.y += b.y;
  return a;
}
KOKKOS_INLINE_FUNCTION Vec2f& operator-=(Vec2f& a, Vec2f b) {
  a.x -= b.x;
  a.y -= b.y;
  return a;
}
KOKKOS_INLINE_FUNCTION constexpr float dot(Vec2f a, Vec2f b) { return a.x * b.x + a.y * b.y; }
/// 2D cross product a.x*b.y - a.y*b.x.
KOKKOS_INLINE_FUNCTION constexpr float cross(Vec2f a, Vec2f b) { return a.x * b.y - a.y * b.x; }
KOKKOS_INLINE_FUNCTION float length(Vec2f a) { return kmath::sqrt(a.x * a.x + a.y * a.y); }
KOKKOS_INLINE_FUNCTION constexpr float length_sq(Vec2f a) { return a.x * a.x + a.y * a.y; }
KOKKOS_INLINE_FUNCTION bool is_finite(Vec2f a) { return kmath::isfinite(a.x) && kmath::isfinite(a.y); }

KOKKOS_INLINE_FUNCTION constexpr Vec3f operator+(Vec3f a, Vec3f b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
KOKKOS_INLINE_FUNCTION constexpr Vec3f operator-(Vec3f a, Vec3f b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
KOKKOS_INLINE_FUNCTION constexpr Vec3f operator*(float s, Vec3f a) { return {s * a.x, s * a.y, s * a.z}; }
KOKKOS_INLINE_FUNCTION constexpr Vec3f operator*(Vec3f a, float s) { return {a.x * s, a.y * s, a.z * s}; }
KOKKOS_INLINE_FUNCTION constexpr float dot(Vec3f a, Vec3f b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
KOKKOS_INLINE_FUNCTION constexpr Vec3f cross(Vec3f a, Vec3f b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
KOKKOS_INLINE_FUNCTION float length(Vec3f a) { return kmath::sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }
KOKKOS_INLINE_FUNCTION bool is_finite(Vec3f a) {
  return kmath::isfinite(a.x) && kmath::isfinite(a.y) && kmath::isfinite(a.z);
}

/// Quiet NaN usable in device code.
KOKKOS_INLINE_FUNCTION constexpr float nanf() { return __builtin_nanf(""); }
KOKKOS_INLINE_FUNCTION constexpr Vec2f nan2() { return {nanf(), nanf()}; }
KOKKOS_INLINE_FUNCTION constexpr Vec3f nan3() { return {nanf(), nanf(), nanf()}; }

}  // namespace trackgen

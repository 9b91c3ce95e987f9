// `trackgen generate --mode gates` and `trackgen metrics --mode gates`: gate
// courses written as gates.json and gates.svg, and their summary per gate
// generator (docs/algorithms.md#gates).
#include "app.hpp"

#include <trackgen/core/geometry.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace trackgen::app {
namespace {

using HostGates = GateSequence<Kokkos::HostSpace>;

nlohmann::json gate_points(const Kokkos::View<Vec3f*, Kokkos::HostSpace>& v, int base, int n) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < n; ++i) a.push_back({v(base + i).x, v(base + i).y, v(base + i).z});
  return a;
}

/// The closed Catmull-Rom course line through env e's gate centres, in plan
/// view (8 samples per gate), as the Course's CourseLine draws it.
std::vector<Vec2f> course_line(const HostGates& g, int e) {
  const int n = g.count(e), base = e * g.max_gates();
  std::vector<Vec2f> line;
  if (n < 3) return line;
  const auto c = [&](int i) {
    const Vec3f p = g.position(base + (i + n) % n);
    return Vec2f{p.x, p.y};
  };
  for (int i = 0; i < n; ++i) {
    for (int s = 0; s < 8; ++s) line.push_back(geom::catmull_rom(c(i - 1), c(i), c(i + 1), c(i + 2), s / 8.0f));
  }
  return line;
}

}  // namespace

GateGenConfig make_gate_config(const BatchOptions& o, int default_envs) {
  GateGenConfig c = o.config_file.empty() ? GateGenConfig{} : load_gate_config(o.config_file);
  if (o.config_file.empty()) c.gate_width = 0.1f;  // gates with an opening (the config's default 0 draws points)
  if (o.config_file.empty() || !config_file_sets(o.config_file, "num_envs")) c.num_envs = default_envs;
  if (!o.generator.empty()) c.generator = o.generator;
  if (o.envs > 0) c.num_envs = o.envs;
  c.validate();  // before anything is allocated
  return c;
}

nlohmann::json gates_json(const GateBatch& b) {
  nlohmann::json gates = nlohmann::json::array();
  const auto& g = b.gates;
  for (int e = 0; e < g.num_envs(); ++e) {
    const int n = g.count(e), base = e * g.max_gates();
    gates.push_back({{"env", e},
                     {"seed", b.seeds[e]},
                     {"valid", g.valid(e)},
                     {"count", n},
                     {"position", gate_points(g.position, base, n)},
                     {"forward", gate_points(g.forward, base, n)},
                     {"left", gate_points(g.left, base, n)},
                     {"right", gate_points(g.right, base, n)}});
  }
  return {{"config", b.config}, {"backend", b.backend}, {"gates", std::move(gates)}};
}

std::string gates_svg(const GateBatch& b) {
  const auto& g = b.gates;
  const int E = g.num_envs(), G = g.max_gates();
  const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(E)))));
  const int rows = (E + cols - 1) / cols;
  const double cw = 160.0, plan_h = 160.0, strip_h = 44.0, ch = plan_h + strip_h, pad = 12.0;
  std::ostringstream s;
  s.precision(2);
  s << std::fixed;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << cols * cw << "' height='" << rows * ch << "' viewBox='0 0 "
    << cols * cw << ' ' << rows * ch << "'>\n<rect width='100%' height='100%' fill='white'/>\n";
  for (int e = 0; e < E; ++e) {
    const int n = g.count(e), base = e * G;
    const double ox = (e % cols) * cw, oy = (e / cols) * ch;
    const bool valid = g.valid(e) != 0;
    s << "<g>\n<rect x='" << ox + 1 << "' y='" << oy + 1 << "' width='" << cw - 2 << "' height='" << ch - 2
      << "' fill='" << (valid ? "#f7f7f7" : "#fde8e8") << "' stroke='#ccc'/>\n";
    const auto line = course_line(g, e);
    double x0 = 1e30, x1 = -1e30, y0 = 1e30, y1 = -1e30, z0 = 1e30, z1 = -1e30;
    const auto grow = [&](double x, double y) {
      if (!std::isfinite(x) || !std::isfinite(y)) return;
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    };
    for (const Vec2f& p : line) grow(p.x, p.y);
    for (int i = 0; i < n; ++i) {
      for (const Vec3f& p : {g.left(base + i), g.right(base + i)}) grow(p.x, p.y);
      z0 = std::min(z0, double(g.position(base + i).z)), z1 = std::max(z1, double(g.position(base + i).z));
    }
    if (n >= 1 && x1 >= x0) {
      // Plan view, y flipped (math orientation): the course line, then each gate
      // as a short bar from left to right with a tick along its forward axis.
      const double sc = (cw - 2 * pad) / std::max(std::max(x1 - x0, y1 - y0), 1e-6);
      const double cx = ox + cw / 2 - sc * (x0 + x1) / 2, cy = oy + plan_h / 2 + sc * (y0 + y1) / 2;
      const auto px = [&](double x) { return cx + sc * x; };
      const auto py = [&](double y) { return cy - sc * y; };
      s << "<polygon fill='none' stroke='#9ab' stroke-width='1' stroke-dasharray='3,2' points='";
      for (const Vec2f& p : line) s << px(p.x) << ',' << py(p.y) << ' ';
      s << "'/>\n";
      for (int i = 0; i < n; ++i) {
        const Vec3f p = g.position(base + i), l = g.left(base + i), r = g.right(base + i), f = g.forward(base + i);
        const double tick = std::max(6.0, 0.6 * sc * std::hypot(l.x - r.x, l.y - r.y));
        const char* colour = i == 0 ? "#2a7" : (valid ? "#222" : "#c33");
        s << "<line x1='" << px(l.x) << "' y1='" << py(l.y) << "' x2='" << px(r.x) << "' y2='" << py(r.y)
          << "' stroke='" << colour << "' stroke-width='3' stroke-linecap='round'/>\n"
          << "<line x1='" << px(p.x) << "' y1='" << py(p.y) << "' x2='" << px(p.x) + tick * f.x << "' y2='"
          << py(p.y) - tick * f.y << "' stroke='#d62' stroke-width='1.2'/>\n";
      }
      // Elevation strip: z of gate i over the course, closed back to gate 0.
      const double sy0 = oy + plan_h + 4, sh = strip_h - 10, zr = std::max(z1 - z0, 1e-6);
      s << "<rect x='" << ox + pad << "' y='" << sy0 << "' width='" << cw - 2 * pad << "' height='" << sh
        << "' fill='white' stroke='#ddd'/>\n<polyline fill='none' stroke='#36c' stroke-width='1.2' points='";
      for (int i = 0; i <= n; ++i) {
        const double x = ox + pad + (cw - 2 * pad) * i / std::max(n, 1);
        const double z = g.position(base + i % n).z;
        s << x << ',' << sy0 + sh - (z1 > z0 ? (z - z0) / zr : 0.5) * sh << ' ';
      }
      s << "'/>\n<text x='" << ox + pad + 2 << "' y='" << sy0 + sh - 2
        << "' font-family='sans-serif' font-size='8' fill='#36c'>z " << z0 << ".." << z1 << "</text>\n";
    }
    s << "<text x='" << ox + 6 << "' y='" << oy + 14 << "' font-family='sans-serif' font-size='10' fill='"
      << (valid ? "#555" : "#c33") << "'>" << e << " (" << n << " gates)" << (valid ? "" : " invalid")
      << "</text>\n</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

GateBatch generate_gates(const GateGenConfig& config, const std::string& backend, int seed, bool eager,
                         std::vector<double>* ms, int repeat) {
  GateBatch b;
  with_backend(backend, [&]<class Space>() {
    const Space space;
    GateGenerator<Space> gen(space, config, SeedState<Space>(space, config.num_envs, seed));
    gen.set_policy(eager ? Policy::eager : Policy::automatic);
    for (int r = 0; r < std::max(repeat, 1); ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      gen.generate();
      gen.space().fence();
      if (ms) ms->push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    b = GateBatch{config, Space::name(), {}, gen.gates().to_host()};
  });
  for (int e = 0; e < config.num_envs; ++e) b.seeds.push_back(expand_seed(seed, e, SeedExpansion::arange));
  return b;
}

GateSummary summarize_gates(const GateBatch& b) {
  const auto& g = b.gates;
  GateSummary s;
  s.generator = b.config.generator;
  s.num_envs = g.num_envs();
  double count_sum = 0.0, closest = INFINITY;
  for (int e = 0; e < g.num_envs(); ++e) {
    const int n = g.count(e), base = e * g.max_gates();
    count_sum += n;
    if (g.valid(e) == 0) continue;
    ++s.num_valid;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const Vec3f a = g.position(base + i), c = g.position(base + j);
        closest = std::min(closest, std::hypot(double(a.x) - c.x, double(a.y) - c.y));
      }
    }
  }
  s.min_centre_distance = s.num_valid > 0 ? closest : NAN;
  s.yield = g.num_envs() > 0 ? double(s.num_valid) / g.num_envs() : 0.0;
  s.mean_count = g.num_envs() > 0 ? count_sum / g.num_envs() : 0.0;
  return s;
}

}  // namespace trackgen::app

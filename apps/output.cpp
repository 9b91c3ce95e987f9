// The pieces the subcommands share: batch options, the config they describe,
// the backend names, and the tracks.json / tracks.svg writers.
#include "app.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace trackgen::app {

void add_batch_options(CLI::App& cmd, BatchOptions& o, int default_envs) {
  cmd.add_option("--config", o.config_file, "JSON file with TrackGenConfig fields (others keep defaults)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--generator", o.generator, "centerline generator (default: bezier, or the config's)");
  cmd.add_option("--envs", o.envs, "batch size E (default: " + std::to_string(default_envs) + ")")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--seed", o.seed, "base seed k; env e uses seed k + e (default: 0)");
  cmd.add_option("--backend", o.backend, "execution space: one of the enabled backends (default: Kokkos' default)");
}

TrackGenConfig make_config(const BatchOptions& o, int default_envs) {
  TrackGenConfig c = o.config_file.empty() ? TrackGenConfig{} : load_config(o.config_file);
  if (o.config_file.empty()) c.num_envs = default_envs;
  if (!o.generator.empty()) c.generator = o.generator;
  if (o.envs > 0) c.num_envs = o.envs;
  c.validate();  // before anything is allocated (the seeds of a runaway --envs included)
  return c;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for_each_space([&]<class Space>() { names.push_back(backend_name<Space>()); });
  return names;
}

namespace {

nlohmann::json points_json(const Kokkos::View<Vec3f*, Kokkos::HostSpace>& v, int base, int n) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    const Vec3f p = v(base + i);
    a.push_back({p.x, p.y, p.z});
  }
  return a;
}

}  // namespace

nlohmann::json batch_json(const Batch& b) {
  nlohmann::json tracks = nlohmann::json::array();
  const auto& t = b.track;
  for (int e = 0; e < t.num_envs(); ++e) {
    const int n = t.count(e);
    const int base = e * t.n_max();
    tracks.push_back({{"env", e},
                      {"seed", b.seeds[e]},
                      {"valid", t.valid(e)},
                      {"count", n},
                      {"length", t.length(e)},
                      {"winding", t.winding(e)},
                      {"truncated", t.truncated(e)},
                      {"invalid_reason", reason_names(t.invalid_reason(e))},
                      {"center", points_json(t.center, base, n)},
                      {"outer", points_json(t.outer, base, n)},
                      {"inner", points_json(t.inner, base, n)}});
  }
  return {{"config", b.config}, {"backend", b.backend}, {"tracks", std::move(tracks)}};
}

std::string batch_svg(const Batch& b, const std::vector<std::vector<Vec3f>>* paths) {
  const auto& t = b.track;
  const int E = t.num_envs();
  const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(E)))));
  const int rows = (E + cols - 1) / cols;
  const double cell = 160.0, pad = 10.0;
  std::ostringstream s;
  s.precision(2);
  s << std::fixed;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << cols * cell << "' height='" << rows * cell
    << "' viewBox='0 0 " << cols * cell << ' ' << rows * cell << "'>\n"
    << "<rect width='100%' height='100%' fill='white'/>\n";
  for (int e = 0; e < E; ++e) {
    const int n = t.count(e), base = e * t.n_max();
    const double ox = (e % cols) * cell, oy = (e / cols) * cell;
    const bool valid = t.valid(e) != 0;
    s << "<g>\n<rect x='" << ox + 1 << "' y='" << oy + 1 << "' width='" << cell - 2 << "' height='" << cell - 2
      << "' fill='" << (valid ? "#f7f7f7" : "#fde8e8") << "' stroke='#ccc'/>\n";
    // Bounding box of the borders; y flipped so the picture is in math orientation.
    double x0 = 1e30, x1 = -1e30, y0 = 1e30, y1 = -1e30;
    for (int i = 0; i < n; ++i) {
      for (const Vec3f& p : {t.outer(base + i), t.inner(base + i)}) {
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
        x0 = std::min(x0, double(p.x)), x1 = std::max(x1, double(p.x));
        y0 = std::min(y0, double(p.y)), y1 = std::max(y1, double(p.y));
      }
    }
    if (n >= 2 && x1 > x0) {
      const double sc = (cell - 2 * pad) / std::max(x1 - x0, y1 - y0);
      const double cx = ox + cell / 2 - sc * (x0 + x1) / 2, cy = oy + cell / 2 + sc * (y0 + y1) / 2;
      auto px = [&](const Vec3f& p) { return cx + sc * p.x; };
      auto py = [&](const Vec3f& p) { return cy - sc * p.y; };
      for (const auto* border : {&t.outer, &t.inner}) {
        s << "<polygon fill='none' stroke='" << (valid ? "#222" : "#c33") << "' stroke-width='1' points='";
        for (int i = 0; i < n; ++i) {
          const Vec3f p = (*border)(base + i);
          if (std::isfinite(p.x) && std::isfinite(p.y)) s << px(p) << ',' << py(p) << ' ';
        }
        s << "'/>\n";
      }
      if (paths != nullptr && e < static_cast<int>(paths->size())) {
        s << "<polyline fill='none' stroke='#d62' stroke-width='1.2' points='";
        for (const Vec3f& p : (*paths)[static_cast<std::size_t>(e)]) {
          if (std::isfinite(p.x) && std::isfinite(p.y)) s << px(p) << ',' << py(p) << ' ';
        }
        s << "'/>\n";
      }
      const Vec3f p0 = t.center(base), tan0 = t.tangent(base);
      if (std::isfinite(p0.x) && std::isfinite(tan0.x)) {
        const double len = 14.0;
        s << "<circle cx='" << px(p0) << "' cy='" << py(p0) << "' r='3' fill='#2a7'/>\n"
          << "<line x1='" << px(p0) << "' y1='" << py(p0) << "' x2='" << px(p0) + len * tan0.x << "' y2='"
          << py(p0) - len * tan0.y << "' stroke='#2a7' stroke-width='2'/>\n";
      }
    }
    s << "<text x='" << ox + 6 << "' y='" << oy + 14 << "' font-family='sans-serif' font-size='10' fill='"
      << (valid ? "#555" : "#c33") << "'>" << e << (valid ? "" : " invalid") << "</text>\n";
    if (!valid) {  // why, along the bottom of the cell
      std::string why;
      for (const auto& r : reason_names(t.invalid_reason(e))) why += (why.empty() ? "" : ", ") + r;
      s << "<text x='" << ox + 6 << "' y='" << oy + cell - 8 << "' font-family='sans-serif' font-size='9' fill='#c33'>"
        << why << "</text>\n";
    }
    s << "</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p);
  if (!(f << text)) throw std::runtime_error("cannot write " + path);
}

}  // namespace trackgen::app

// The bench's chart: throughput (tracks/s) against the batch size at the sweep
// thread count, and parallel efficiency against the thread count.
#include "bench.hpp"

#include <algorithm>
#include <sstream>

namespace trackgen::app::bench {
namespace {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  ///< (x, y)
  bool dashed = false;
  int color = 0;
};

/// A panel's plot area (left, top, width, height) and its axis ranges, in
/// axis units (log10 on log axes, log base x_base on a log x axis).
struct Frame {
  double left, top, width, height;
  double x0, x1, y0, y1;
  double x_of(double a) const { return left + (a - x0) / (x1 - x0) * width; }
  double y_of(double a) const { return top + height - (a - y0) / (y1 - y0) * height; }
};

/// Grid lines and labels of the x axis.
std::string x_ticks(const Frame& f, bool log_x, double x_base) {
  std::ostringstream s;
  const double step = log_x ? 1.0 : std::max(1.0, std::round((f.x1 - f.x0) / 8));
  for (double a = log_x ? f.x0 : std::ceil(f.x0); a <= f.x1 + 1e-9; a += step) {
    const double X = f.x_of(a);
    s << "<line x1=\"" << X << "\" y1=\"" << f.top << "\" x2=\"" << X << "\" y2=\"" << f.top + f.height
      << "\" stroke=\"#ddd\"/><text x=\"" << X << "\" y=\"" << f.top + f.height + 16
      << "\" text-anchor=\"middle\" font-size=\"11\">" << fmt("%.0f", log_x ? std::pow(x_base, a) : a) << "</text>\n";
  }
  return s.str();
}

/// Grid lines and labels of the y axis (1, 2, 5 per decade on a log axis).
std::string y_ticks(const Frame& f, bool log_y) {
  std::ostringstream s;
  auto tick = [&](double a, const char* stroke, const std::string& text) {
    const double Y = f.y_of(a);
    s << "<line x1=\"" << f.left << "\" y1=\"" << Y << "\" x2=\"" << f.left + f.width << "\" y2=\"" << Y
      << "\" stroke=\"" << stroke << "\"/><text x=\"" << f.left - 5 << "\" y=\"" << Y + 4
      << "\" text-anchor=\"end\" font-size=\"11\">" << text << "</text>\n";
  };
  if (log_y) {
    for (double a = f.y0; a <= f.y1 + 1e-9; a += 1) {
      for (int m : {1, 2, 5}) {
        const double la = a + std::log10(double(m));
        if (la > f.y1 + 1e-9) break;
        tick(la, m == 1 ? "#ccc" : "#eee", fmt("%g", std::pow(10.0, la)));
      }
    }
  } else {
    const double step = (f.y1 - f.y0) > 1.5 ? 0.5 : 0.2;
    for (double a = std::ceil(f.y0 / step) * step; a <= f.y1 + 1e-9; a += step) tick(a, "#eee", fmt("%.1f", a));
  }
  return s.str();
}

/// The series' lines, points and legend entries.
template <class PX, class PY>
std::string series_svg(const Frame& f, const std::vector<Series>& series, bool log_x, bool log_y, const PX& px,
                       const PY& py) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                 "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  std::ostringstream s;
  int li = 0;
  for (const auto& se : series) {
    bool any = false;
    for (auto [x, y] : se.points) any = any || (std::isfinite(x) && std::isfinite(y));
    if (!any) continue;  // nothing measured (e.g. every size skipped): no line, no legend entry
    const char* col = colors[se.color % 10];
    const char* dash = se.dashed ? " stroke-dasharray=\"6,4\"" : "";
    std::string pts;
    for (auto [x, y] : se.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (log_x && x <= 0) || (log_y && y <= 0)) continue;
      pts += fmt("%.1f", px(x)) + "," + fmt("%.1f", py(y)) + " ";
      s << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"3\" fill=\"" << col << "\"/>\n";
    }
    s << "<polyline points=\"" << pts << "\" fill=\"none\" stroke=\"" << col << "\" stroke-width=\"2\"" << dash
      << "/>\n";
    const double ly = f.top + 14 + 16 * li++;
    s << "<line x1=\"" << f.left + 10 << "\" y1=\"" << ly - 4 << "\" x2=\"" << f.left + 34 << "\" y2=\"" << ly - 4
      << "\" stroke=\"" << col << "\" stroke-width=\"2\"" << dash << "/><text x=\"" << f.left + 40 << "\" y=\"" << ly
      << "\" font-size=\"11\">" << xml_escape(se.name) << "</text>\n";
  }
  return s.str();
}

/// Axis options of a panel.
struct Axes {
  std::string xlabel, ylabel;
  bool log_x = false, log_y = false;
  double x_base = 10.0;
  double y_fixed_lo = NAN, y_fixed_hi = NAN;  ///< forced y range ends (y_fixed_hi: at least)
  double y_ref = NAN;                         ///< a dashed reference line
};

/// One chart panel at (x0, y0) of size w x h.
std::string svg_panel(double x0, double y0, double w, double h, const std::string& title, const Axes& ax,
                      const std::vector<Series>& series) {
  std::ostringstream s;
  Frame f{70, 30, w - 70 - 10, h - 30 - 45, 0, 0, 0, 0};
  s << "<g transform=\"translate(" << x0 << "," << y0 << ")\">\n";
  s << "<text x=\"" << f.left + f.width / 2
    << "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">" << xml_escape(title) << "</text>\n";
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& se : series) {
    for (auto [x, y] : se.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (ax.log_x && x <= 0) || (ax.log_y && y <= 0)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  s << "<rect x=\"" << f.left << "\" y=\"" << f.top << "\" width=\"" << f.width << "\" height=\"" << f.height
    << "\" fill=\"white\" stroke=\"#444\"/>\n";
  if (!(xmin <= xmax)) {
    s << "<text x=\"" << f.left + f.width / 2 << "\" y=\"" << f.top + f.height / 2
      << "\" text-anchor=\"middle\" font-size=\"12\" fill=\"#666\">no data (one thread count only)</text>\n</g>\n";
    return s.str();
  }
  auto tx = [&](double v) { return ax.log_x ? std::log(v) / std::log(ax.x_base) : v; };
  auto ty = [&](double v) { return ax.log_y ? std::log10(v) : v; };
  f.x0 = ax.log_x ? std::floor(tx(xmin)) : std::min(0.0, tx(xmin));
  f.x1 = ax.log_x ? std::ceil(tx(xmax)) : tx(xmax) + 0.5;
  f.y0 = ax.log_y ? std::floor(ty(ymin)) : ty(ymin);
  f.y1 = ax.log_y ? std::ceil(ty(ymax)) : ty(ymax);
  if (std::isfinite(ax.y_fixed_lo)) f.y0 = ax.y_fixed_lo;
  if (std::isfinite(ax.y_fixed_hi)) f.y1 = std::max(ax.y_fixed_hi, f.y1 * 1.05);
  if (f.x1 <= f.x0) f.x1 = f.x0 + 1;
  if (f.y1 <= f.y0) f.y1 = f.y0 + 1;
  s << x_ticks(f, ax.log_x, ax.x_base) << y_ticks(f, ax.log_y);
  if (std::isfinite(ax.y_ref)) {
    const double Y = f.y_of(ax.y_ref);
    s << "<line x1=\"" << f.left << "\" y1=\"" << Y << "\" x2=\"" << f.left + f.width << "\" y2=\"" << Y
      << "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/>\n";
  }
  s << "<text x=\"" << f.left + f.width / 2 << "\" y=\"" << h - 8 << "\" text-anchor=\"middle\" font-size=\"12\">"
    << xml_escape(ax.xlabel) << "</text>\n";
  s << "<text transform=\"translate(16," << f.top + f.height / 2
    << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" << xml_escape(ax.ylabel) << "</text>\n";
  s << series_svg(
      f, series, ax.log_x, ax.log_y, [&](double v) { return f.x_of(tx(v)); }, [&](double v) { return f.y_of(ty(v)); });
  s << "</g>\n";
  return s.str();
}

}  // namespace

void write_svg(const BenchRun& run, const std::vector<Summary>& sums, const std::string& path) {
  std::vector<Series> thr, eff;
  int color = 0;
  const bool policies = run.policies.size() > 1;
  for (const auto& k : keys_of(run)) {
    Series s{k.generator + (policies ? " (" + k.policy + ")" : ""), {}, false, color};
    for (const auto& m : run.measurements) {
      if (m["generator"] != k.generator || m["policy"] != k.policy || m["threads"] != run.sweep_threads ||
          m["phase"] != "sweep") {
        continue;
      }
      s.points.emplace_back(m["envs"].get<int>(), m["tracks_per_s"].get<double>());
    }
    std::sort(s.points.begin(), s.points.end());
    thr.push_back(s);
    for (const auto& su : sums) {
      if (!(su.key == k) || su.strong.empty()) continue;
      Series a{s.name + " strong E=" + std::to_string(run.strong_envs), {}, false, color};
      Series b{s.name + " weak " + std::to_string(run.weak_envs) + "/thread", {}, true, color};
      for (const auto& r : su.strong) a.points.emplace_back(r.threads, r.efficiency);
      for (const auto& r : su.weak) b.points.emplace_back(r.threads, r.efficiency);
      eff.push_back(a);
      eff.push_back(b);
    }
    ++color;
  }
  const double W = 1100, H = 460;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H + 30 << "\" viewBox=\"0 0 "
      << W << " " << H + 30
      << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  Axes throughput{"batch size E (envs)", "tracks / s", true, true, 4.0};
  svg << svg_panel(0, 0, W * 0.55, H,
                   "Throughput at " + std::to_string(run.sweep_threads) + " thread(s), " + run.space_name, throughput,
                   thr);
  Axes efficiency{"threads", "efficiency (1 = ideal)", false, false, 10.0, 0.0, 1.2, 1.0};
  svg << svg_panel(W * 0.55, 0, W * 0.45, H, "Parallel efficiency (" + run.space_name + ")", efficiency, eff);
  svg << "<text x=\"10\" y=\"" << H + 20 << "\" font-size=\"11\" fill=\"#555\">"
      << xml_escape("TrackGen " + std::string(version()) + " (" + git_revision() + "), Kokkos " +
                    compat::kokkos_version_string() + ", " + run.context["cpu_model"].get<std::string>() + ", " +
                    utc_now())
      << "</text>\n</svg>\n";
  write_file(path, svg.str());
  std::printf("wrote %s\n", path.c_str());
}

}  // namespace trackgen::app::bench

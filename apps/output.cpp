// The pieces the subcommands share: batch options, the config they describe,
// the backend names, the tracks.json / tracks.svg writers, and the one place
// output files are written (atomically) and checked before any work.
#include "app.hpp"

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace trackgen::app {

void add_batch_options(CLI::App& cmd, BatchOptions& o, int default_envs) {
  cmd.add_option("--config", o.config_file,
                 "JSON file with TrackGenConfig fields (others keep defaults; `trackgen config --schema` lists them); "
                 "without num_envs in it, --envs' default applies")
      ->check(CLI::ExistingFile);
  cmd.add_option("--generator", o.generator,
                 "centerline generator: " + comma_list(generator_names()) +
                     " (default: bezier, or the config's; --mode gates: " + comma_list(builtin_gate_generator_names()) +
                     ")");
  cmd.add_option("--envs", o.envs, "batch size E (default: " + std::to_string(default_envs) + ")")
      ->check(int_in(1, std::numeric_limits<int>::max()));
  cmd.add_option("--seed", o.seed, "base seed k; env e uses seed k + e (default: 0)")
      ->check(int_in(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  cmd.add_option("--backend", o.backend,
                 backend_help());
}

bool config_file_sets(const std::string& path, const char* key) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() && j.contains(key);
}

TrackGenConfig make_config(const BatchOptions& o, int default_envs) {
  TrackGenConfig c = o.config_file.empty() ? TrackGenConfig{} : load_config(o.config_file);
  if (o.config_file.empty() || !config_file_sets(o.config_file, "num_envs")) c.num_envs = default_envs;
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

std::string backend_help() {
  return "execution space: " + comma_list(backend_names()) + " (default: Kokkos' default)";
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

namespace {

/// "what 'path': strerror(err)"
std::runtime_error io_error(const std::string& what, const std::filesystem::path& p, int err) {
  return std::runtime_error(what + " '" + p.string() + "': " + std::strerror(err));
}

/// Writes all of `text` to the new file `tmp`; false with errno set on a failure.
bool write_new(const std::filesystem::path& tmp, const std::string& text) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      errno = err;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0;
}

/// The nearest existing ancestor of `p` (p itself when it exists).
std::filesystem::path existing_ancestor(std::filesystem::path p) {
  std::error_code ec;
  p = std::filesystem::absolute(p, ec);
  while (!std::filesystem::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  return p;
}

/// ConfigError unless `dir` is a writable folder or can be created.
void check_dir(const std::filesystem::path& dir, const std::string& option, const std::string& given) {
  const std::filesystem::path base = existing_ancestor(dir);
  std::error_code ec;
  const std::string head = option + " '" + given + "': ";
  if (!std::filesystem::is_directory(base, ec)) {
    throw ConfigError(head + "'" + base.string() + "' is not a folder");
  }
  if (::access(base.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(head + "cannot write into '" + base.string() + "': " + std::strerror(errno));
  }
}

}  // namespace

namespace {

/// Where an output file's bytes go (resolve_target).
struct Target {
  std::filesystem::path path;  ///< the name to write: `given` with its symlinks resolved (or `given` itself)
  bool in_place = false;       ///< an existing character device or FIFO: written to directly, never replaced
};

/// Where the output `given` goes: a symbolic link is followed (a chain of
/// them, relative ones from their folder) to the name it points at, which
/// is written or created; an existing character device or FIFO (/dev/null,
/// /dev/stdout, /dev/fd/N of a pipe, a named pipe) is written to in place;
/// any other existing file that is not a regular file (a block device, a
/// socket, a folder) is refused: std::runtime_error, its message `head`
/// (e.g. "cannot write 'x.svg'") and the reason.
Target resolve_target(const std::string& given, const std::string& head) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(given, ec);  // follows the links
  switch (st.type()) {
    case fs::file_type::character:
    case fs::file_type::fifo:
      return {given, true};
    case fs::file_type::regular:
    case fs::file_type::not_found:
      break;
    case fs::file_type::directory:
      throw std::runtime_error(head + ": is a folder, not a file");
    case fs::file_type::block:
      throw std::runtime_error(head + ": is a block device; outputs go to files, character devices and pipes");
    case fs::file_type::socket:
      throw std::runtime_error(head + ": is a socket; outputs go to files, character devices and pipes");
    default:
      throw std::runtime_error(head + ": " + (ec ? ec.message() : std::string("is not a regular file")));
  }
  fs::path p(given);
  for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    if (hops == 40) throw std::runtime_error(head + ": " + std::strerror(ELOOP));
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) throw std::runtime_error(head + ": " + ec.message());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return {p, false};
}

/// Writes all of `text` into the existing character device or FIFO `p`
/// (opening a FIFO waits for its reader); false with errno set on a failure.
bool write_in_place(const std::filesystem::path& p, const std::string& text) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      errno = err;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0 || errno == EINTR;
}

}  // namespace

void write_files(const std::vector<OutputFile>& files) {
  namespace fs = std::filesystem;
  std::vector<fs::path> created_dirs, temps, renamed;
  const auto roll_back = [&] {
    std::error_code ec;
    for (const auto& t : temps) fs::remove(t, ec);
    for (const auto& r : renamed) fs::remove(r, ec);
    for (auto d = created_dirs.rbegin(); d != created_dirs.rend(); ++d) fs::remove(*d, ec);  // only if empty
  };
  std::vector<Target> targets;
  for (const auto& f : files) targets.push_back(resolve_target(f.path, "cannot write '" + f.path + "'"));
  try {
    for (std::size_t k = 0; k < files.size(); ++k) {
      if (targets[k].in_place) {
        temps.emplace_back();  // nothing to rename
        continue;
      }
      const fs::path p = targets[k].path;
      const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
      // Folders this call creates, outermost first, so a failure can remove them.
      std::vector<fs::path> missing;
      std::error_code ec;
      for (fs::path d = dir; !d.empty() && !fs::exists(d, ec) && d != d.parent_path(); d = d.parent_path()) {
        missing.insert(missing.begin(), d);
      }
      for (const auto& d : missing) {
        if (!fs::create_directory(d, ec) && ec) throw io_error("cannot create the folder", d, ec.value());
        created_dirs.push_back(d);
      }
      fs::path tmp;
      for (int i = 0;; ++i) {
        // ".NAME.PID.I.tmp", appended piece by piece: GCC 12 misreads "." + std::string&& as overlapping
        std::string name(".");
        name += p.filename().string();
        name += '.';
        name += std::to_string(::getpid());
        name += '.';
        name += std::to_string(i);
        name += ".tmp";
        tmp = dir / name;
        if (write_new(tmp, files[k].text)) break;
        if (errno != EEXIST) {
          const int err = errno;
          fs::remove(tmp, ec);  // a partly written temporary
          throw io_error("cannot write", files[k].path, err);
        }
      }
      temps.push_back(tmp);
    }
    // The devices and pipes, once every file is ready (a failure there still
    // leaves the regular targets untouched), then the renames.
    for (std::size_t k = 0; k < files.size(); ++k) {
      if (targets[k].in_place && !write_in_place(targets[k].path, files[k].text)) {
        throw io_error("cannot write", files[k].path, errno);
      }
    }
    for (std::size_t k = 0; k < files.size(); ++k) {
      if (targets[k].in_place) continue;
      if (std::rename(temps[k].c_str(), targets[k].path.c_str()) != 0) {
        throw io_error("cannot write", files[k].path, errno);
      }
      renamed.push_back(targets[k].path);
    }
    temps.clear();
  } catch (...) {
    roll_back();
    throw;
  }
}

void write_file(const std::string& path, const std::string& text) { write_files({{path, text}}); }

void check_output_dir(const std::string& dir, const std::string& option) {
  if (dir.empty()) throw ConfigError(option + ": the folder name is empty; give a folder, e.g. " + option + " out");
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw ConfigError(option + " '" + dir + "': exists and is not a folder");
  }
  check_dir(dir, option, dir);
}

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) throw ConfigError(option + ": the output file name is empty");
  const std::filesystem::path p(path);
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec) || !p.has_filename()) {
    throw ConfigError(option + " '" + path + "': is a folder, not a file");
  }
  const std::string head = option + " '" + path + "'";
  Target t;
  try {
    t = resolve_target(path, head);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  if (t.in_place) {  // a device or a pipe: written to, not replaced
    if (::access(path.c_str(), W_OK) != 0) throw ConfigError(head + ": cannot write to it: " + std::strerror(errno));
    return;
  }
  check_dir(t.path.has_parent_path() ? t.path.parent_path() : std::filesystem::path("."), option, path);
}

}  // namespace trackgen::app

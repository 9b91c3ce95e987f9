// `trackgen serve`: the parameter explorer. An HTTP server (cpp-httplib), bound
// to 127.0.0.1 unless told otherwise, serves the embedded page (apps/serve/) and
// the JSON API it uses (README.md, "The parameter explorer"): GET /api/generators,
// GET /api/schema and POST /api/generate. The HTTP threads parse requests and
// write answers; every Kokkos call runs on the main thread, the one that
// initialized Kokkos, one request at a time.
#include "../app.hpp"
#include "assets.hpp"

#include <CLI/CLI.hpp>

#include <trackgen/core/config_schema.hpp>
#include <trackgen/runtime/checkpoints.hpp>

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

namespace trackgen::app {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

/// The most envs one POST /api/generate may ask for.
constexpr int max_envs = 64;
/// The largest request body accepted (larger ones get HTTP 413).
constexpr std::size_t max_body_bytes = 64 * 1024;
/// num_envs of a request that does not set it.
constexpr int default_request_envs = 16;
/// The smallest checkpoint_spacing a request may ask for (bounds the checkpoint buffers).
constexpr double min_checkpoint_spacing = 0.01;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string backend;
};

/// A request the server refuses (HTTP 400) for a reason of its own, beside
/// the ConfigError of a bad config.
struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Milliseconds since `t0`.
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// Runs the jobs posted by the HTTP threads on the thread that calls drain().
class MainThreadQueue {
 public:
  /// Runs `job` on the draining thread and waits for it; rethrows what it threw.
  void run(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    {
      std::lock_guard lock(mutex_);
      if (closed_) throw std::runtime_error("the server is shutting down");
      jobs_.push_back(std::move(task));
    }
    ready_.notify_one();
    done.get();
  }

  /// Runs posted jobs in order until close() was called and none is left.
  void drain() {
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        task = std::move(jobs_.front());
        jobs_.pop_front();
      }
      task();
    }
  }

  /// Lets drain() return once the posted jobs are done.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<void()>> jobs_;
  bool closed_ = false;
};

/// A parsed POST /api/generate body: the server's own keys taken out, the rest
/// config fields.
struct GenerateRequest {
  std::string mode = "track";
  int seed = 0;
  std::optional<float> checkpoint_spacing;
  json fields;  ///< TrackGenConfig (mode track) or GateGenConfig (mode gates) fields
};

/// The request in `body`; BadRequest naming the key for a malformed one (config
/// fields are checked later, by from_json and validate()).
GenerateRequest parse_generate_request(const std::string& body) {
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    throw BadRequest(std::string("request body is not JSON: ") + e.what());
  }
  if (!j.is_object()) {
    throw BadRequest(std::string("request body: expected a JSON object of config fields, got ") + j.type_name());
  }
  GenerateRequest r;
  if (const auto it = j.find("mode"); it != j.end()) {
    if (!it->is_string() || (*it != "track" && *it != "gates")) {
      throw BadRequest("mode: expected \"track\" or \"gates\", got " + it->dump());
    }
    r.mode = it->get<std::string>();
    j.erase(it);
  }
  if (const auto it = j.find("seed"); it != j.end()) {
    if (!it->is_number_integer() || *it < std::numeric_limits<int>::min() || *it > std::numeric_limits<int>::max()) {
      throw BadRequest("seed: expected a 32-bit integer, got " + it->dump());
    }
    r.seed = it->get<int>();
    j.erase(it);
  }
  if (const auto it = j.find("checkpoint_spacing"); it != j.end()) {
    if (r.mode != "track") throw BadRequest("checkpoint_spacing: only in mode \"track\"");
    if (!it->is_number() || !(it->get<double>() >= min_checkpoint_spacing && it->get<double>() <= 1e6)) {
      throw BadRequest("checkpoint_spacing: expected a number >= " + std::to_string(min_checkpoint_spacing) + ", got " +
                       it->dump());
    }
    r.checkpoint_spacing = it->get<float>();
    j.erase(it);
  }
  if (!j.contains("num_envs")) j["num_envs"] = default_request_envs;
  if (r.mode == "gates" && !j.contains("gate_width")) j["gate_width"] = 0.1;  // as `trackgen generate --mode gates`
  r.fields = std::move(j);
  return r;
}

/// BadRequest when `num_envs` is above the server's limit.
void check_batch_size(int num_envs) {
  if (num_envs > max_envs) {
    throw BadRequest("num_envs: " + std::to_string(num_envs) + " is above this server's limit of " +
                     std::to_string(max_envs) + " envs per request");
  }
}

/// Points [base, base + n) of a host View as [[x, y, z], ...].
template <class HostView>
json host_points(const HostView& v, int base, int n) {
  json a = json::array();
  for (int i = 0; i < n; ++i) a.push_back({v(base + i).x, v(base + i).y, v(base + i).z});
  return a;
}

/// Checkpoints every `spacing` along each track's centre line, as the Course places them.
template <class Space>
json checkpoints_json(const Space& space, const Track<typename Space::memory_space>& track, float spacing) {
  CheckpointSampler<Space> sampler(space, track, spacing);
  const auto& set = sampler.checkpoints();
  const auto position = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.position);
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.left);
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.right);
  const auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.count);
  json out = json::array();
  for (int e = 0; e < set.num_envs(); ++e) {
    const int base = e * set.stride(), n = count(e);
    out.push_back({{"env", e},
                   {"count", n},
                   {"position", host_points(position, base, n)},
                   {"left", host_points(left, base, n)},
                   {"right", host_points(right, base, n)}});
  }
  return out;
}

/// A track batch: batch_json's document plus mode, seed, metrics, checkpoints and timings.
template <class Space>
json generate_tracks(const GenerateRequest& r) {
  TrackGenConfig config = r.fields.get<TrackGenConfig>();
  check_batch_size(config.num_envs);
  config.validate(available_generators<Space>());
  const Space space;
  const auto t0 = Clock::now();
  TrackGenerator<Space> gen(space, config, SeedState<Space>(space, config.num_envs, r.seed));
  gen.set_policy(Policy::eager);  // one call: nothing to replay
  gen.generate();
  gen.space().fence();
  const double generate_ms = ms_since(t0);

  const auto t1 = Clock::now();
  const TrackCounts counts = track_counts(gen.track());
  json metrics = batch_stats(gen, generate_ms);
  metrics["num_truncated"] = counts.num_truncated;
  const double metrics_ms = ms_since(t1);

  const auto t2 = Clock::now();
  Batch b{config, Space::name(), {}, gen.track().to_host()};
  for (int e = 0; e < config.num_envs; ++e) b.seeds.push_back(expand_seed(r.seed, e, SeedExpansion::arange));
  json out = batch_json(b);
  out["mode"] = "track";
  out["seed"] = r.seed;
  out["metrics"] = std::move(metrics);
  if (r.checkpoint_spacing) {
    // The sampler sizes its buffers from the valid envs; a batch without one has no checkpoints.
    out["checkpoints"] = counts.num_valid > 0 ? checkpoints_json(space, gen.track(), *r.checkpoint_spacing) : json();
  }
  out["timing_ms"] = {{"generate", generate_ms}, {"metrics", metrics_ms}, {"encode", ms_since(t2)}};
  return out;
}

/// A gate batch: gates_json's document plus mode, seed, metrics and timings.
template <class Space>
json generate_gate_courses(const GenerateRequest& r, const std::string& backend) {
  GateGenConfig config = r.fields.get<GateGenConfig>();
  check_batch_size(config.num_envs);
  config.validate(available_gate_generators<Space>());
  std::vector<double> ms;
  const GateBatch b = generate_gates(config, backend, r.seed, /*eager=*/true, &ms, 1);
  const GateSummary s = summarize_gates(b);
  json out = gates_json(b);
  out["mode"] = "gates";
  out["seed"] = r.seed;
  out["metrics"] = {{"generator", s.generator},   {"num_envs", s.num_envs},
                    {"num_valid", s.num_valid},   {"yield", s.yield},
                    {"mean_count", s.mean_count}, {"min_centre_distance", s.min_centre_distance}};
  out["timing_ms"] = {{"generate", ms.front()}};
  return out;
}

/// Sends `body` as the JSON answer with `status`.
void reply_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  // With a charset parameter cpp-httplib leaves the answer uncompressed: for a bare
  // "application/json" it picks brotli at its highest quality whenever the client
  // accepts it (browsers do), which took ~0.7 s for a 16-track answer (180 kB).
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json; charset=utf-8");
}

/// Sends {"error": message} with `status`.
void reply_error(httplib::Response& res, int status, const std::string& message) {
  reply_json(res, status, {{"error", message}});
}

/// The server's bounds, as /api/schema reports them.
json server_limits() {
  return {{"max_envs", max_envs},
          {"max_body_bytes", max_body_bytes},
          {"default_num_envs", default_request_envs},
          {"min_checkpoint_spacing", min_checkpoint_spacing}};
}

/// Binds, prints the URL, then serves until the listener stops; Kokkos work on this thread.
template <class Space>
void run_serve(const ServeOptions& o) {
  MainThreadQueue kokkos_thread;
  httplib::Server server;
  server.set_payload_max_length(max_body_bytes);
  // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, which lets a
  // second server (of anyone's) bind the same port and take a share of the requests.
  server.set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });

  for (const serve::Asset& a : serve::assets()) {
    std::string pattern;
    for (const char c : a.path) pattern += c == '.' ? std::string("\\.") : std::string(1, c);
    const auto handler = [&a](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(a.body), std::string(a.content_type).c_str());
    };
    server.Get(pattern, handler);
    if (a.path == "/index.html") server.Get("/", handler);
  }

  // Answers `f()` as JSON, run on the Kokkos thread; a bad request or config is a 400.
  const auto answer = [&kokkos_thread](httplib::Response& res, const std::function<json()>& f) {
    try {
      json body;
      kokkos_thread.run([&] { body = f(); });
      reply_json(res, 200, body);
    } catch (const ConfigError& e) {
      reply_error(res, 400, e.what());
    } catch (const BadRequest& e) {
      reply_error(res, 400, e.what());
    } catch (const std::exception& e) {
      reply_error(res, 500, e.what());
    }
  };
  const auto gates_asked = [](const httplib::Request& req) { return req.get_param_value("mode") == "gates"; };

  server.Get("/api/generators", [&](const httplib::Request& req, httplib::Response& res) {
    const bool gates = gates_asked(req);
    answer(res, [gates] { return json(gates ? available_gate_generators<Space>() : available_generators<Space>()); });
  });
  server.Get("/api/schema", [&](const httplib::Request& req, httplib::Response& res) {
    const bool gates = gates_asked(req);
    answer(res, [gates] {
      json schema =
          gates ? gate_config_schema(available_gate_generators<Space>()) : config_schema(available_generators<Space>());
      schema["limits"] = server_limits();
      return schema;
    });
  });
  server.Post("/api/generate", [&](const httplib::Request& req, httplib::Response& res) {
    const auto t0 = Clock::now();
    GenerateRequest r;
    try {
      r = parse_generate_request(req.body);
    } catch (const BadRequest& e) {
      return reply_error(res, 400, e.what());
    }
    answer(res, [&] {
      json out = r.mode == "gates" ? generate_gate_courses<Space>(r, o.backend) : generate_tracks<Space>(r);
      out["timing_ms"]["server"] = ms_since(t0);
      return out;
    });
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) return reply_error(res, 404, "not found");
    if (res.status == 413) {
      return reply_error(res, 413, "request body larger than " + std::to_string(max_body_bytes) + " bytes");
    }
    reply_error(res, res.status, "HTTP " + std::to_string(res.status));
  });

  const int port = o.port == 0 ? server.bind_to_any_port(o.host) : (server.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) throw std::runtime_error("serve: cannot listen on " + o.host + ":" + std::to_string(o.port));
  std::printf("trackgen serve: http://%s:%d/ (backend %s)\n", o.host.c_str(), port, Space::name());
  std::fflush(stdout);
  std::thread http([&] {
    server.listen_after_bind();
    kokkos_thread.close();
  });
  kokkos_thread.drain();
  http.join();
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "serve the parameter explorer (a page and its JSON API) over HTTP; stop it with Ctrl-C");
  cmd->add_option("--port", o->port, "TCP port; 0 picks a free one, printed on stdout (default: 8080)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host,
                  "address to bind (default: 127.0.0.1, this machine only; 0.0.0.0 opens it to the network)");
  cmd->add_option("--backend", o->backend, backend_help());
  return {cmd, [o] { with_backend(o->backend, [&]<class Space>() { run_serve<Space>(*o); }); }};
}

}  // namespace trackgen::app

// `trackgen serve`: the parameter explorer. An HTTP server (http.hpp), bound to
// 127.0.0.1 unless told otherwise, serves the embedded page (apps/serve/) and
// the JSON API it uses (README.md, "The parameter explorer"). The I/O thread
// answers the page, its files, the generator lists, the schemas and the status
// at once, and checks each POST /api/generate up front (its JSON, its config,
// its estimated work and memory); the batches themselves run on the main
// thread, the one that initialized Kokkos, one at a time, from a bounded
// queue. A request whose client has gone is dropped from the queue, and one
// already running stops at its next phase (README.md, "Limits of the server").
#include "../app.hpp"
#include "assets.hpp"
#include "http.hpp"
#include "work.hpp"

#include <CLI/CLI.hpp>

#include <trackgen/core/config_schema.hpp>
#include <trackgen/runtime/checkpoints.hpp>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
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
/// The most estimated work (serve::WorkEstimate, about ns of one core) of one request.
constexpr double max_request_work = 10e9;
/// Bytes per point of a [x, y, z] list in an answer: the JSON document's values
/// (three numbers, the array and its slot in the parent, with allocator
/// overhead) and the JSON text.
constexpr std::size_t json_triple_bytes = 160;
/// Bytes of an env's own record in an answer (env, seed, flags, counts).
constexpr std::size_t json_env_bytes = 2048;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string backend;
  int max_connections = 64;
  double request_timeout = 10.0;  ///< seconds
  int queue = 16;
};

/// A request the server refuses (HTTP 400) for a reason of its own, beside
/// the ConfigError of a bad config.
struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A request the server cannot take now (HTTP 503): the queue is full, or the
/// answers still being written hold the memory it needs.
struct Busy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown at a phase boundary of a batch whose client has gone.
struct ClientGone {};

/// Milliseconds since `t0`.
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// "12.3 MiB"
std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1 << 20));
  return buf;
}

/// "4.2 s"
std::string core_seconds(double work) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", work / 1e9);
  return buf;
}

/// The counters of a KokkosQueue.
struct QueueStats {
  std::size_t capacity = 0;  ///< requests that may wait beside the running one
  std::size_t waiting = 0;
  bool running = false;
  std::size_t done = 0;       ///< batches run to their answer
  std::size_t dropped = 0;    ///< waiting requests whose client went before they ran
  std::size_t abandoned = 0;  ///< running batches stopped because their client went
  std::size_t busy = 0;       ///< requests answered 503 (queue full, or answer memory)
};

/// The requests that run on the thread that calls drain() (the Kokkos thread),
/// in order; at most `capacity` wait beside the running one.
class KokkosQueue {
 public:
  explicit KokkosQueue(std::size_t capacity) { stats_.capacity = capacity; }

  /// Queues `job` for `client` unless the queue is full (false). Requests whose
  /// client has gone are dropped first, so they never take a place.
  bool try_push(std::function<void()> job, http::Responder client) {
    {
      std::lock_guard lock(mutex_);
      std::erase_if(jobs_, [&](const Job& j) {
        if (!j.client.gone()) return false;
        ++stats_.dropped;
        return true;
      });
      if (closed_ || jobs_.size() >= stats_.capacity + (stats_.running ? 0 : 1)) {
        ++stats_.busy;
        return false;
      }
      jobs_.push_back({std::move(job), std::move(client)});
    }
    ready_.notify_one();
    return true;
  }

  /// Runs the queued jobs in order until close(); a job whose client has gone
  /// is dropped. Jobs catch their own errors.
  void drain() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !jobs_.empty(); });
        if (closed_) {
          jobs_.clear();
          return;
        }
        Job j = std::move(jobs_.front());
        jobs_.pop_front();
        if (j.client.gone()) {
          ++stats_.dropped;
          continue;
        }
        job = std::move(j.run);
        stats_.running = true;
      }
      job();
      std::lock_guard lock(mutex_);
      stats_.running = false;
    }
  }

  /// Lets drain() return after the running job; waiting jobs are dropped.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  /// Counts one finished (`done`), abandoned or busy request.
  void count(std::size_t QueueStats::*counter) {
    std::lock_guard lock(mutex_);
    ++(stats_.*counter);
  }

  QueueStats stats() const {
    std::lock_guard lock(mutex_);
    QueueStats s = stats_;
    s.waiting = jobs_.size();
    return s;
  }

 private:
  struct Job {
    std::function<void()> run;
    http::Responder client;
  };
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  QueueStats stats_;
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

/// The request in `body`; ConfigError for text that is not JSON or repeats a
/// key (as --config files), BadRequest naming the key for a malformed one
/// (config fields are checked later, by from_json and validate()).
GenerateRequest parse_generate_request(const std::string& body) {
  json j = parse_config_json(body, "request body");
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

/// BadRequest when the estimated work of `w` is above max_request_work.
void check_work(const serve::WorkEstimate& w) {
  if (w.total() <= max_request_work) return;
  const serve::WorkTerm& big = w.largest();
  const int fit = w.envs_within(max_request_work);
  throw BadRequest(big.field + ": the estimated work of this request, " + core_seconds(w.total()) +
                   " of one CPU core for " + std::to_string(w.num_envs) + " envs, is above this server's bound of " +
                   core_seconds(max_request_work) + " per request; its largest part is " + big.what + " (" +
                   core_seconds(big.per_env) + " per env). " +
                   (fit > 0 ? "At most " + std::to_string(fit) + " envs of this config fit"
                            : "Not even one env fits: lower " + big.field));
}

/// Bytes of the server's own buffers for an answer of `num_envs` envs of the
/// track config `c`: the host copy of the batch, the JSON document and its text
/// (centre line and both borders per bead, three lists per checkpoint).
std::size_t track_answer_bytes(const TrackGenConfig& c, int num_envs, std::optional<float> checkpoint_spacing) {
  const double beads = c.N_max;
  // An untruncated env's perimeter is below N_max * spacing; checked in double,
  // as the work bound (checked first) is, so that no spacing overflows it.
  const double checkpoints =
      checkpoint_spacing ? std::ceil(beads * c.resolved_spacing() / *checkpoint_spacing) + 1.0 : 0.0;
  const double per_env = json_env_bytes + 3.0 * json_triple_bytes * (beads + checkpoints);
  const double bytes = per_env * num_envs + static_cast<double>(Track<Kokkos::HostSpace>::bytes_for(num_envs, c.N_max));
  return bytes < 1e18 ? static_cast<std::size_t>(bytes) : static_cast<std::size_t>(1e18);
}

/// The same for a gate config: position, forward, left and right per gate.
std::size_t gate_answer_bytes(const GateGenConfig& c, int num_envs) {
  const std::size_t per_env = json_env_bytes + 4 * json_triple_bytes * static_cast<std::size_t>(c.max_gates);
  return GateSequence<Kokkos::HostSpace>::bytes_for(num_envs, c.max_gates) +
         per_env * static_cast<std::size_t>(num_envs);
}

/// Throws BadRequest when `bytes(num_envs)`, the estimate of the producer plus
/// the server's buffers, is above the memory limit (memory_limit_bytes()),
/// naming both parts and how many envs would fit. Returns the estimate.
template <class Estimate>
std::size_t check_request_memory(int num_envs, const Estimate& bytes) {
  const auto [producer, answer] = bytes(num_envs);
  const std::size_t limit = memory_limit_bytes();
  if (limit == 0 || producer + answer <= limit) return producer + answer;
  int fit = 0;
  for (int e = 1; e <= num_envs; ++e) {  // at most max_envs
    const auto [p, a] = bytes(e);
    if (p + a > limit) break;
    fit = e;
  }
  throw BadRequest("num_envs: this request needs about " + mib(static_cast<double>(producer + answer)) +
                   " (the producer " + mib(static_cast<double>(producer)) +
                   ", the server's host copy and JSON answer " + mib(static_cast<double>(answer)) +
                   "), above the memory limit of " + mib(static_cast<double>(limit)) +
                   " (TRACKGEN_MEMORY_LIMIT_MB, else 3/4 of the physical memory). " +
                   (fit > 0 ? "At most " + std::to_string(fit) + " envs of this config fit" : "Not even one env fits"));
}

/// A request checked up front and ready to run.
struct Plan {
  GenerateRequest request;
  TrackGenConfig track;
  GateGenConfig gates;
  serve::WorkEstimate work;
  std::size_t memory = 0;  ///< producer plus the server's buffers, in bytes
};

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

/// A track batch: batch_json's document plus mode, seed, metrics, checkpoints
/// and timings. `wanted()` throws ClientGone between the phases once the client has gone.
template <class Space, class Wanted>
json generate_tracks(const Plan& p, const Wanted& wanted) {
  const TrackGenConfig& config = p.track;
  const GenerateRequest& r = p.request;
  const Space space;
  const auto t0 = Clock::now();
  TrackGenerator<Space> gen(space, config, SeedState<Space>(space, config.num_envs, r.seed));
  gen.set_policy(Policy::eager);  // one call: nothing to replay
  gen.generate();
  gen.space().fence();
  const double generate_ms = ms_since(t0);
  wanted();

  const auto t1 = Clock::now();
  const TrackCounts counts = track_counts(gen.track());
  json metrics = batch_stats(gen, generate_ms);
  metrics["num_truncated"] = counts.num_truncated;
  const double metrics_ms = ms_since(t1);
  wanted();

  const auto t2 = Clock::now();
  json checkpoints;
  if (r.checkpoint_spacing && counts.num_valid > 0) {
    // The sampler sizes its buffers from the valid envs; a batch without one has no checkpoints.
    checkpoints = checkpoints_json(space, gen.track(), *r.checkpoint_spacing);
    wanted();
  }
  Batch b{config, Space::name(), {}, gen.track().to_host()};
  for (int e = 0; e < config.num_envs; ++e) b.seeds.push_back(expand_seed(r.seed, e, SeedExpansion::arange));
  json out = batch_json(b);
  out["mode"] = "track";
  out["seed"] = r.seed;
  out["metrics"] = std::move(metrics);
  if (r.checkpoint_spacing) out["checkpoints"] = std::move(checkpoints);
  out["timing_ms"] = {{"generate", generate_ms}, {"metrics", metrics_ms}, {"encode", ms_since(t2)}};
  return out;
}

/// A gate batch: gates_json's document plus mode, seed, metrics and timings.
template <class Wanted>
json generate_gate_courses(const Plan& p, const std::string& backend, const Wanted& wanted) {
  std::vector<double> ms;
  const GateBatch b = generate_gates(p.gates, backend, p.request.seed, /*eager=*/true, &ms, 1);
  wanted();
  const GateSummary s = summarize_gates(b);
  json out = gates_json(b);
  out["mode"] = "gates";
  out["seed"] = p.request.seed;
  out["metrics"] = {{"generator", s.generator},   {"num_envs", s.num_envs},
                    {"num_valid", s.num_valid},   {"yield", s.yield},
                    {"mean_count", s.mean_count}, {"min_centre_distance", s.min_centre_distance}};
  out["timing_ms"] = {{"generate", ms.front()}};
  return out;
}

/// `body` as a JSON answer with `status`, never cached.
http::Response json_response(int status, std::string body) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

/// `body` as JSON text. Not compressed: a browser's brotli answer of a 16-track
/// batch (180 kB) took ~0.7 s to compress.
std::string json_text(const json& body) { return body.dump(-1, ' ', false, json::error_handler_t::replace); }

/// {"error": message} with `status`.
http::Response error_response(int status, const std::string& message) {
  http::Response r = json_response(status, json_text({{"error", message}}));
  if (status == 503) r.headers.emplace_back("Retry-After", "1");
  return r;
}

/// 405 naming the methods `path` takes.
http::Response method_not_allowed(const std::string& method, const std::string& path, const std::string& allow) {
  http::Response r = error_response(405, method + " " + path + ": not allowed here; use " + allow);
  r.headers.emplace_back("Allow", allow);
  return r;
}

/// The explorer on execution space Space: the HTTP server, the queue of
/// batches and what the I/O thread answers by itself.
template <class Space>
class Explorer {
 public:
  explicit Explorer(const ServeOptions& o)
      : o_(o),
        queue_(static_cast<std::size_t>(o.queue)),
        server_(limits(o), [this](const http::Request& req, http::Responder res) { handle(req, std::move(res)); }) {
    track_generators_ = available_generators<Space>();
    gate_generators_ = available_gate_generators<Space>();
    track_schema_ = config_schema(track_generators_);
    track_schema_["limits"] = server_limits();
    gate_schema_ = gate_config_schema(gate_generators_);
    gate_schema_["limits"] = server_limits();
  }

  /// Listens, prints the URL, then serves until SIGINT or SIGTERM; batches run on this thread.
  void run() {
    if (o_.host.empty()) {
      throw ConfigError(
          "serve: --host is empty; give an address: 127.0.0.1 or ::1 (this machine only), or 0.0.0.0 "
          "or :: (every network interface)");
    }
    const std::string url = server_.listen(o_.host, o_.port, [&](bool loopback) {
      if (!loopback) {
        logging::warn("serve: --host " + o_.host +
                      " is not a loopback address: the explorer, and the generation work it runs, is served to the "
                      "network, to anyone who can reach this machine (it has no authentication)");
      }
    });
    std::printf("trackgen serve: %s (backend %s)\n", url.c_str(), Space::name());
    std::fflush(stdout);
    std::thread io([&] {
      server_.run();
      queue_.close();
    });
    queue_.drain();
    io.join();
  }

 private:
  static http::Limits limits(const ServeOptions& o) {
    http::Limits l;
    l.max_connections = static_cast<std::size_t>(o.max_connections);
    l.request_timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(o.request_timeout * 1000.0)));
    l.max_body_bytes = max_body_bytes;
    return l;
  }

  /// The server's bounds, as /api/schema and /api/status report them.
  json server_limits() const {
    const http::Limits l = limits(o_);
    return {{"max_envs", max_envs},
            {"max_body_bytes", max_body_bytes},
            {"default_num_envs", default_request_envs},
            {"min_checkpoint_spacing", min_checkpoint_spacing},
            {"max_work", max_request_work},
            {"memory_limit_bytes", memory_limit_bytes()},
            {"queue", o_.queue},
            {"max_connections", o_.max_connections},
            {"request_timeout_s", o_.request_timeout},
            {"max_header_bytes", l.max_header_bytes},
            {"max_header_fields", l.max_header_fields}};
  }

  /// Every request, on the I/O thread.
  void handle(const http::Request& req, const http::Responder& res) {
    const bool get = req.method == "GET" || req.method == "HEAD";
    if (req.path == "/api/generate") {
      if (req.method != "POST") return res.send(method_not_allowed(req.method, req.path, "POST"));
      return post_generate(req, res);
    }
    if (req.path == "/api/generators" || req.path == "/api/schema" || req.path == "/api/status") {
      if (!get) return res.send(method_not_allowed(req.method, req.path, "GET, HEAD"));
      const bool gates = http::query_param(req.query, "mode") == "gates";
      if (req.path == "/api/generators")
        return res.send(json_response(200, json_text(json(gates ? gate_generators_ : track_generators_))));
      if (req.path == "/api/schema")
        return res.send(json_response(200, json_text(gates ? gate_schema_ : track_schema_)));
      return res.send(json_response(200, json_text(status())));
    }
    for (const serve::Asset& a : serve::assets()) {
      if (req.path != a.path && !(req.path == "/" && a.path == "/index.html")) continue;
      if (!get) return res.send(method_not_allowed(req.method, req.path, "GET, HEAD"));
      http::Response r;
      r.content_type = std::string(a.content_type);
      r.body = std::string(a.body);
      return res.send(std::move(r));
    }
    res.send(error_response(404, "not found"));
  }

  /// GET /api/status: the queue and the connections.
  json status() const {
    const QueueStats q = queue_.stats();
    const http::ConnectionStats c = server_.stats();
    return {{"queue",
             {{"capacity", q.capacity},
              {"waiting", q.waiting},
              {"running", q.running},
              {"done", q.done},
              {"dropped", q.dropped},
              {"abandoned", q.abandoned},
              {"busy", q.busy}}},
            {"connections",
             {{"open", c.open}, {"refused", c.refused}, {"timed_out", c.timed_out}, {"answer_bytes", c.answer_bytes}}},
            {"limits", server_limits()}};
  }

  /// POST /api/generate: checked here, queued for the Kokkos thread.
  void post_generate(const http::Request& req, const http::Responder& res) {
    const auto t0 = Clock::now();
    std::shared_ptr<Plan> plan;
    try {
      plan = std::make_shared<Plan>(make_plan(parse_generate_request(req.body)));
    } catch (const ConfigError& e) {
      return res.send(error_response(400, e.what()));
    } catch (const BadRequest& e) {
      return res.send(error_response(400, e.what()));
    } catch (const std::exception& e) {
      return res.send(error_response(500, e.what()));
    }
    const bool queued = queue_.try_push([this, plan, res, t0] { run_batch(*plan, res, t0); }, res);
    if (!queued) {
      const QueueStats q = queue_.stats();
      res.send(error_response(503, "busy: a batch is running and " + std::to_string(q.waiting) +
                                       " requests wait (this server's queue holds " + std::to_string(q.capacity) +
                                       "); try again shortly"));
    }
  }

  /// The request `r` with its config read, validated and estimated; ConfigError
  /// or BadRequest when it is bad or too large. Host code only.
  Plan make_plan(GenerateRequest r) const {
    Plan p;
    if (r.mode == "gates") {
      p.gates = r.fields.get<GateGenConfig>();
      check_batch_size(p.gates.num_envs);
      p.gates.validate(gate_generators_);
      p.work = serve::estimate_gate_work(p.gates);
      check_work(p.work);
      p.memory = check_request_memory(p.gates.num_envs, [&](int e) {
        GateGenConfig c = p.gates;
        c.num_envs = e;
        return std::pair{estimate_gate_memory<Space>(c), gate_answer_bytes(c, e)};
      });
    } else {
      p.track = r.fields.get<TrackGenConfig>();
      check_batch_size(p.track.num_envs);
      p.track.validate(track_generators_);
      p.work = serve::estimate_track_work(p.track, r.checkpoint_spacing.value_or(0.0f));
      check_work(p.work);
      p.memory = check_request_memory(p.track.num_envs, [&](int e) {
        TrackGenConfig c = p.track;
        c.num_envs = e;
        return std::pair{estimate_memory<Space>(c), track_answer_bytes(c, e, r.checkpoint_spacing)};
      });
    }
    p.request = std::move(r);
    return p;
  }

  /// One batch, on the Kokkos thread; every outcome answers `res` (or counts it abandoned).
  void run_batch(const Plan& p, const http::Responder& res, Clock::time_point t0) {
    const auto wanted = [&res] {
      if (res.gone()) throw ClientGone{};
    };
    try {
      const std::size_t limit = memory_limit_bytes(), held = server_.stats().answer_bytes;
      if (limit > 0 && p.memory + held > limit) {
        throw Busy("busy: answers of " + mib(static_cast<double>(held)) +
                   " are still being written to their clients, and this request needs " +
                   mib(static_cast<double>(p.memory)) + " of the memory limit of " + mib(static_cast<double>(limit)) +
                   "; try again shortly");
      }
      json out =
          p.request.mode == "gates" ? generate_gate_courses(p, o_.backend, wanted) : generate_tracks<Space>(p, wanted);
      out["timing_ms"]["server"] = ms_since(t0);
      out["estimate"] = {{"work", p.work.total()}, {"memory_bytes", p.memory}};
      std::string body = json_text(out);
      out = json();
      wanted();
      queue_.count(&QueueStats::done);  // before the answer: a client that has it sees it counted
      res.send(json_response(200, std::move(body)));
    } catch (const ClientGone&) {
      queue_.count(&QueueStats::abandoned);
    } catch (const Busy& e) {
      queue_.count(&QueueStats::busy);
      res.send(error_response(503, e.what()));
    } catch (const ConfigError& e) {
      res.send(error_response(400, e.what()));
    } catch (const BadRequest& e) {
      res.send(error_response(400, e.what()));
    } catch (const std::exception& e) {
      res.send(error_response(500, e.what()));
    }
  }

  const ServeOptions& o_;
  KokkosQueue queue_;
  http::Server server_;
  std::vector<std::string> track_generators_, gate_generators_;
  json track_schema_, gate_schema_;
};

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "serve the parameter explorer (a page and its JSON API) over HTTP; stop it with Ctrl-C");
  cmd->add_option("--port", o->port, "TCP port; 0 picks a free one, printed on stdout (default: 8080)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host,
                  "address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 or :: opens it to the "
                  "network, with a warning)");
  cmd->add_option("--backend", o->backend, backend_help());
  cmd->add_option("--max-connections", o->max_connections,
                  "connections open at once; more are answered 503 (default: 64)")
      ->check(int_in(1, 100000));
  cmd->add_option("--request-timeout", o->request_timeout,
                  "seconds a connection has to send a whole request, head and body (default: 10)")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("--queue", o->queue,
                  "generate requests that may wait while one runs; more are answered 503 (default: 16)")
      ->check(int_in(0, 1000));
  return {cmd, [o] {
            with_backend(o->backend, [&]<class Space>() {
              Explorer<Space> explorer(*o);
              explorer.run();
            });
          }};
}

}  // namespace trackgen::app

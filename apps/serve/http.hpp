// The HTTP/1.1 server under `trackgen serve` (Boost.Beast on Boost.Asio, both
// Debian's libboost-dev): one I/O thread serves every connection
// asynchronously, so a slow or silent client holds no thread, and every
// request is read within the bounds of Limits before the handler sees it
// (README.md, "Limits of the server"). Nothing here knows about Kokkos: the
// handler answers at once or hands the request's Responder to another thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trackgen::app::http {

/// What one connection and one request may take. A request that breaks a limit
/// is answered with its status (below) and the connection is closed.
struct Limits {
  /// Connections open at once; a connection beyond them is answered 503 and closed.
  std::size_t max_connections = 64;
  /// From the moment a connection waits for a request (on connect, and after
  /// each answer on a kept-alive connection) until that request's head and body
  /// have arrived; past it the connection is closed (a client that trickles its
  /// headers cannot hold the connection longer).
  std::chrono::milliseconds request_timeout{10000};
  /// The longest an answer may take to be written to the client.
  std::chrono::milliseconds write_timeout{60000};
  /// Request line plus header fields, in bytes (431 beyond it).
  std::size_t max_header_bytes = 16 * 1024;
  /// Header fields of one request (431 beyond it).
  std::size_t max_header_fields = 100;
  /// Request body, in bytes after any chunked transfer coding is removed (413 beyond it).
  std::size_t max_body_bytes = 64 * 1024;
};

/// One request, as the handler sees it: its head has been checked against
/// Limits and its body read in full.
struct Request {
  std::string method;  ///< "GET", "POST", ...
  std::string path;    ///< the target up to '?'
  std::string query;   ///< the target after '?' (empty without one)
  std::string body;
};

/// The query parameter `key` of `query` ("a=1&mode=gates"), or "" when absent;
/// no percent-decoding (the API's parameters are plain words).
std::string query_param(const std::string& query, const std::string& key);

/// One answer.
struct Response {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< extra header fields
};

namespace detail {
class Session;
struct Exchange;
}  // namespace detail

/// The way back to the client of one request. Copies share it; the first
/// send() answers and later ones are ignored. Safe to use from any thread. If
/// the last copy goes without an answer while the client still waits, the
/// client gets a 500.
class Responder {
 public:
  explicit Responder(std::shared_ptr<detail::Exchange> x) : x_(std::move(x)) {}
  /// Writes `r` to the client (asynchronously, on the I/O thread).
  void send(Response r) const;
  /// Whether the client has gone: it closed its side of the connection (or the
  /// connection failed) while waiting for this answer. Nothing sent then reaches it.
  bool gone() const;

 private:
  std::shared_ptr<detail::Exchange> x_;
};

/// Answers one request: on the I/O thread, so it must not block; work that takes
/// time goes elsewhere with the Responder.
using Handler = std::function<void(const Request&, Responder)>;

/// Counters of the connections, for the status endpoint.
struct ConnectionStats {
  std::size_t open = 0;          ///< connections open now
  std::size_t refused = 0;       ///< connections answered 503 for max_connections
  std::size_t timed_out = 0;     ///< connections closed for request_timeout or write_timeout
  std::size_t answer_bytes = 0;  ///< bytes of answers handed to send() and not yet written
};

/// The server. Bind, then run() on the thread that will do the I/O.
class Server {
 public:
  Server(Limits limits, Handler handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Listens on `host` (an address or a name; its first address is used) and
  /// `port` (0: any free port); `resolved(loopback)` is called once the address
  /// is known, before it is bound. Returns the URL ("http://127.0.0.1:8080/",
  /// an IPv6 address in brackets). std::runtime_error "cannot listen on
  /// HOST:PORT: REASON" (the system's reason) when it cannot.
  std::string listen(const std::string& host, int port, const std::function<void(bool loopback)>& resolved);
  /// The port listened on.
  int port() const;
  /// Whether the address listened on is a loopback one (reachable from this machine only).
  bool loopback() const;
  /// Serves until stop() (or SIGINT / SIGTERM): the I/O loop runs on the calling thread.
  void run();
  /// Stops run(): no new connection is accepted, open ones are closed. Any thread.
  void stop();
  /// The connection counters. Any thread.
  ConnectionStats stats() const;

 private:
  friend class detail::Session;
  friend struct detail::Exchange;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trackgen::app::http

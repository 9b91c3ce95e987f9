// The HTTP/1.1 server under `trackgen serve` (http.hpp): Boost.Beast's parser
// and serializer on Boost.Asio, one I/O thread, one Session per connection.
//
// A connection's life: wait for a request under one deadline (request_timeout)
// that covers its head and body; check the head (size and field count, body
// size, Content-Encoding); read the body (Beast's body_limit counts the bytes
// after the chunked coding is removed, so a chunked body is bounded like any
// other); hand the request to the handler; while its answer is prepared
// elsewhere, watch the socket, so that a client that goes away is noticed
// (Responder::gone) and bytes it pipelines are kept for the next request; write
// the answer; then the next request, or close. A request that breaks a limit
// is answered and the connection is closed after a short drain of what the
// client still sends (so that the answer is not lost to a reset).
#include "http.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <optional>
#include <stdexcept>

namespace trackgen::app::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

namespace {

/// Bytes a closing connection still reads (and drops) from a client that keeps
/// sending, so that the client sees the answer rather than a reset.
constexpr std::size_t linger_bytes = 1 << 20;
/// How long a closing connection waits for the client to stop sending.
constexpr std::chrono::seconds linger_time{2};

/// {"error": message} as JSON text (message escaped).
std::string error_json(const std::string& message) {
  std::string out = "{\"error\": \"";
  for (const char c : message) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"}";
}

/// "127.0.0.1" or "[::1]": an address as it stands in a URL.
std::string url_host(const net::ip::address& a) { return a.is_v6() ? "[" + a.to_string() + "]" : a.to_string(); }

}  // namespace

std::string query_param(const std::string& query, const std::string& key) {
  std::size_t start = 0;
  while (start <= query.size()) {
    const std::size_t end = std::min(query.find('&', start), query.size());
    const std::string item = query.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (item.substr(0, eq) == key) return eq == std::string::npos ? std::string() : item.substr(eq + 1);
    start = end + 1;
  }
  return {};
}

struct Server::Impl {
  Impl(Limits l, Handler h) : limits(l), handler(std::move(h)) {}

  Limits limits;
  Handler handler;
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::signal_set signals{io, SIGINT, SIGTERM};
  net::steady_timer accept_retry{io};
  int port = 0;
  bool loopback = false;
  std::atomic<std::size_t> open{0};
  std::atomic<std::size_t> refused{0};
  std::atomic<std::size_t> timed_out{0};
  std::atomic<std::size_t> answer_bytes{0};

  void accept();
};

namespace detail {

/// What the I/O thread and the holders of a Responder share about one request.
struct Exchange {
  std::shared_ptr<Session> session;
  std::atomic<bool> answered{false};
  std::atomic<bool> gone{false};
  ~Exchange();
};

/// One connection.
class Session : public std::enable_shared_from_this<Session> {
 public:
  /// A connection; `counted` when it is one of the open connections (not one refused for their limit).
  Session(tcp::socket socket, Server::Impl& server, bool counted)
      : stream_(std::move(socket)),
        buffer_(server.limits.max_header_bytes + server.limits.max_body_bytes),
        server_(server),
        counted_(counted) {}
  ~Session() {
    server_.answer_bytes -= held_bytes_;
    if (counted_) --server_.open;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Server::Impl& server() { return server_; }
  auto executor() { return stream_.get_executor(); }

  void start() { read_request(); }

  /// Answers 503 for the connection limit without reading a request, then closes.
  void start_refused() {
    refuse(503,
           "this server has " + std::to_string(server_.limits.max_connections) +
               " connections open, its limit; try again when one closes",
           {{"Retry-After", "1"}});
  }

  /// Writes `r` (whose body bytes were added to answer_bytes) as the answer to
  /// the request being handled, unless the connection is gone. I/O thread.
  void answer(Response r) {
    held_bytes_ += r.body.size();
    if (closed_ || !waiting_) return;
    waiting_ = false;
    error_code ignored;
    stream_.socket().cancel(ignored);  // the watch for a departing client
    write(std::move(r), !keep_alive_);
  }

 private:
  void read_request() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.limits.max_header_bytes));
    parser_->body_limit(server_.limits.max_body_bytes);
    stream_.expires_after(server_.limits.request_timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& req = parser_->get();
    const auto fields = static_cast<std::size_t>(std::distance(req.begin(), req.end()));
    if (fields > server_.limits.max_header_fields) {
      return refuse(431, "request with " + std::to_string(fields) + " header fields; this server takes at most " +
                             std::to_string(server_.limits.max_header_fields));
    }
    for (const auto& f : req) {
      if (f.name() == bhttp::field::content_encoding && !beast::iequals(f.value(), "identity")) {
        return refuse(415, "Content-Encoding " + std::string(f.value()) +
                               " is not accepted; send the body uncompressed (at most " +
                               std::to_string(server_.limits.max_body_bytes) + " bytes)");
      }
    }
    if (beast::iequals(req[bhttp::field::expect], "100-continue") && !parser_->is_done()) {
      static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
      return net::async_write(stream_, net::buffer(go_on.data(), go_on.size()),
                              [self = shared_from_this()](error_code e, std::size_t) {
                                if (e) return self->close();
                                self->read_body();
                              });
    }
    read_body();
  }

  void read_body() {
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](error_code ec, std::size_t) { self->on_body(ec); });
  }

  void on_read_error(error_code ec) {
    const auto& limits = server_.limits;
    if (ec == beast::error::timeout) {
      ++server_.timed_out;
      return close();
    }
    if (ec == bhttp::error::header_limit) {
      return refuse(431, "request head larger than " + std::to_string(limits.max_header_bytes) + " bytes");
    }
    if (ec == bhttp::error::body_limit) {
      return refuse(413, "request body larger than " + std::to_string(limits.max_body_bytes) + " bytes");
    }
    if (ec == bhttp::error::buffer_overflow) {
      return refuse(
          413, "request larger than " + std::to_string(limits.max_header_bytes + limits.max_body_bytes) + " bytes");
    }
    if (ec == bhttp::error::bad_content_length) {
      return refuse(400, "malformed request: a bad Content-Length, or several that disagree");
    }
    if (ec == bhttp::error::bad_transfer_encoding) {
      return refuse(400, "malformed request: a bad Transfer-Encoding, or one beside Content-Length");
    }
    if (ec.category() == bhttp::make_error_code(bhttp::error::end_of_stream).category() &&
        ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
      return refuse(400, "malformed request: " + ec.message());
    }
    close();  // the client closed the connection or it failed
  }

  void on_body(error_code ec) {
    if (ec) return on_read_error(ec);
    stream_.expires_never();  // the answer may take a while: the watch notices a client that leaves
    auto req = parser_->release();
    parser_.reset();
    keep_alive_ = req.keep_alive();
    head_ = req.method() == bhttp::verb::head;
    Request r;
    r.method = std::string(req.method_string());
    const std::string target(req.target());
    const std::size_t q = target.find('?');
    r.path = target.substr(0, q);
    r.query = q == std::string::npos ? std::string() : target.substr(q + 1);
    r.body = std::move(req.body());

    auto x = std::make_shared<Exchange>();
    x->session = shared_from_this();
    exchange_ = x;
    waiting_ = true;
    server_.handler(r, Responder(std::move(x)));
    if (waiting_) watch();
  }

  /// Waits for the socket to become readable while the answer is prepared:
  /// end of stream or an error means the client is gone; data (a pipelined
  /// request) is read into the buffer, up to its size.
  void watch() {
    stream_.socket().async_wait(tcp::socket::wait_read,
                                [self = shared_from_this()](error_code ec) { self->on_readable(ec); });
  }

  void on_readable(error_code ec) {
    if (ec || !waiting_ || closed_) return;
    char c = 0;
    const ssize_t n = ::recv(stream_.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return watch();
    if (n > 0) {
      const std::size_t room = buffer_.max_size() - buffer_.size();
      if (room == 0) return;  // a client with a full buffer of requests is still there
      error_code read_ec;
      const std::size_t got = stream_.socket().read_some(buffer_.prepare(std::min<std::size_t>(room, 4096)), read_ec);
      buffer_.commit(got);
      if (!read_ec) return watch();
    }
    if (auto x = exchange_.lock()) x->gone = true;
    close();
  }

  /// Answers {"error": message} with `status` (and `headers`) and closes the connection.
  void refuse(int status, const std::string& message, std::vector<std::pair<std::string, std::string>> headers = {}) {
    Response r;
    r.status = status;
    r.headers = std::move(headers);
    r.body = error_json(message);
    server_.answer_bytes += r.body.size();
    held_bytes_ += r.body.size();
    write(std::move(r), true);
  }

  void write(Response r, bool close_after) {
    res_.emplace();
    res_->version(11);
    res_->result(static_cast<unsigned>(r.status));
    res_->set(bhttp::field::server, "trackgen");
    res_->set(bhttp::field::content_type, r.content_type);
    for (const auto& [name, value] : r.headers) res_->set(name, value);
    res_->body() = std::move(r.body);
    res_->keep_alive(!close_after);
    res_->prepare_payload();
    if (head_) {
      const std::size_t n = res_->body().size();
      res_->body().clear();
      res_->content_length(n);
    }
    stream_.expires_after(server_.limits.write_timeout);
    bhttp::async_write(stream_, *res_, [self = shared_from_this(), close_after](error_code ec, std::size_t) {
      self->on_write(ec, close_after);
    });
  }

  void on_write(error_code ec, bool close_after) {
    server_.answer_bytes -= held_bytes_;
    held_bytes_ = 0;
    res_.reset();
    head_ = false;
    if (ec) {
      if (ec == beast::error::timeout) ++server_.timed_out;
      return close();
    }
    if (close_after) return linger_close();
    read_request();
  }

  /// Half-closes, then reads and drops what the client still sends (at most
  /// linger_bytes, for at most linger_time) before closing.
  void linger_close() {
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(linger_time);
    lingered_ = 0;
    drain();
  }

  void drain() {
    stream_.async_read_some(net::buffer(scratch_), [self = shared_from_this()](error_code ec, std::size_t n) {
      self->lingered_ += n;
      if (ec || self->lingered_ > linger_bytes) return self->close();
      self->drain();
    });
  }

  void close() {
    if (auto x = exchange_.lock(); x && waiting_) x->gone = true;
    waiting_ = false;
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Server::Impl& server_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> res_;
  std::weak_ptr<Exchange> exchange_;  ///< of the request being answered
  std::size_t held_bytes_ = 0;        ///< answer bytes counted in answer_bytes
  std::size_t lingered_ = 0;
  std::array<char, 4096> scratch_{};
  bool counted_;
  bool keep_alive_ = false;
  bool head_ = false;
  bool waiting_ = false;  ///< a request was handed to the handler and is not answered
  bool closed_ = false;
};

Exchange::~Exchange() {
  if (answered || gone) return;
  try {
    Response r;
    r.status = 500;
    r.body = error_json("internal error: the request was not answered");
    session->server().answer_bytes += r.body.size();
    net::post(session->executor(), [s = session, r = std::move(r)]() mutable { s->answer(std::move(r)); });
  } catch (...) {
    // Out of memory: the connection closes when the session goes.
  }
}

}  // namespace detail

void Responder::send(Response r) const {
  if (x_->answered.exchange(true)) return;
  const auto s = x_->session;
  s->server().answer_bytes += r.body.size();
  net::post(s->executor(), [s, r = std::move(r)]() mutable { s->answer(std::move(r)); });
}

bool Responder::gone() const { return x_->gone; }

void Server::Impl::accept() {
  acceptor.async_accept([this](error_code ec, tcp::socket s) {
    if (ec == net::error::operation_aborted) return;
    if (ec) {  // out of descriptors, for instance: try again shortly rather than spin
      accept_retry.expires_after(std::chrono::milliseconds(100));
      accept_retry.async_wait([this](error_code e) {
        if (!e) accept();
      });
      return;
    }
    error_code ignored;
    s.set_option(tcp::no_delay(true), ignored);
    if (open >= limits.max_connections) {
      ++refused;
      std::make_shared<detail::Session>(std::move(s), *this, false)->start_refused();
    } else {
      ++open;
      std::make_shared<detail::Session>(std::move(s), *this, true)->start();
    }
    accept();
  });
}

Server::Server(Limits limits, Handler handler) : impl_(std::make_unique<Impl>(limits, std::move(handler))) {}

Server::~Server() = default;

std::string Server::listen(const std::string& host, int port, const std::function<void(bool loopback)>& resolved) {
  Impl& m = *impl_;
  const std::string where =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  const auto fail = [&](const error_code& ec) {
    throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
  };
  error_code ec;
  tcp::resolver resolver(m.io);
  const auto found =
      resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec) fail(ec);
  if (found.empty()) fail(net::error::host_not_found);
  const tcp::endpoint at = found.begin()->endpoint();
  m.loopback = at.address().is_loopback();
  resolved(m.loopback);
  m.acceptor.open(at.protocol(), ec);
  if (ec) fail(ec);
  m.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);  // SO_REUSEADDR, not SO_REUSEPORT
  if (ec) fail(ec);
  m.acceptor.bind(at, ec);
  if (ec) fail(ec);
  m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) fail(ec);
  m.port = m.acceptor.local_endpoint().port();
  return "http://" + url_host(at.address()) + ":" + std::to_string(m.port) + "/";
}

int Server::port() const { return impl_->port; }

bool Server::loopback() const { return impl_->loopback; }

void Server::run() {
  Impl& m = *impl_;
  m.signals.async_wait([this](error_code ec, int) {
    if (!ec) stop();
  });
  m.accept();
  m.io.run();
}

void Server::stop() {
  Impl& m = *impl_;
  net::post(m.io, [&m] {
    error_code ignored;
    m.acceptor.close(ignored);
    m.signals.cancel(ignored);
    m.io.stop();
  });
}

ConnectionStats Server::stats() const { return {impl_->open, impl_->refused, impl_->timed_out, impl_->answer_bytes}; }

}  // namespace trackgen::app::http

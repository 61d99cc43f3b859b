// The event loop under the Service (server/listener.h): Boost.Asio for sockets and timers,
// Boost.Beast's parser for HTTP/1.1, and for responses a head written directly
// (server/response_head.h) or, for the rare rest, Beast's serializer.
#include "server/listener.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <utility>  // Before Asio: Boost 1.74's asio/awaitable.hpp uses std::exchange without it.

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "server/beast_request.h"
#include "server/beast_response.h"
#include "server/errors.h"
#include "server/fair_queue.h"
#include "server/loop_relief.h"
#include "server/poll_window.h"
#include "server/response_head.h"

namespace omnigraph::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using beast_request::Convert;
using beast_request::Lower;
using beast_request::Str;

// Requests a connection may carry before the server closes it; high, so clients keep their
// connections.
constexpr size_t kKeepAliveRequestsMax = 100000;
// The read buffer of a connection: a header must fit (the parser stops at kHeaderBytesMax), and
// a body passes through it in pieces of at most this size.
constexpr size_t kReadBufferBytesMax = size_t{64} << 10;
// A streamed response's producer (a worker) waits while this much is queued for the socket.
constexpr size_t kStreamQueuedBytesMax = size_t{256} << 10;
// After a response that closes the connection, what the client still sends is read and dropped
// for this long, so that closing does not reset the connection before the client has read the
// response (a reset may discard it).
constexpr int kLingerS = 1;
// Connections refused over the limit that may linger at once; beyond, they are closed at once.
constexpr size_t kRefusingMax = 64;
// After accept fails (no file descriptors left), the loop retries after this long rather than
// spinning on a listening socket that stays readable.
constexpr auto kAcceptRetry = std::chrono::milliseconds(50);

class Session;

// What every session shares; touched only by the thread running the loop (the loop thread, or its
// standby while the loop thread runs a long request: LoopRelief), except `queue`, `relief`, `io`.
struct Loop {
  Loop(const Service& s, ListenerOptions o) : service(s), options(o) {}
  const Service& service;
  const ListenerOptions options;
  // Hint 1: one thread runs handlers at a time. The standby runs steps of the loop only while the
  // loop thread sits inside one handler (RunHere); Asio's locking stays on under this hint, and
  // what the loop thread posts from inside a handler stays its own (so End cannot wake the
  // standby by a post: the standby's steps are bounded instead, LoopRelief::kStep).
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  // One caller may run on at most three quarters of the workers (at least one).
  FairQueue queue{options.workers, options.workers - options.workers / 4};
  // The loop runs a request itself when the server is otherwise idle; a standby takes the loop
  // over when that request runs long (decision 220).
  LoopRelief relief;
  // How long the loop polls after its last work before it sleeps, and whether a core is spare
  // for it (decision 231; RunLoop).
  PollWindow poll_window;
  SpareCore spare_core;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;
  size_t open = 0;      // sessions counted against connections_max
  size_t refusing = 0;  // sessions refused over the limit, lingering
  // Read by workers too (Session::KeepAlive, deciding a response's Connection header).
  std::atomic<bool> stopping = false;
  bool accept_failed = false;
  // Bytes dropped while lingering (never read).
  std::array<char, 16384> discard{};
};

// A streamed body between the worker producing it and the loop writing it. Thread-safe.
struct Pipe {
  std::mutex mu;
  std::condition_variable cv;
  std::string queued;
  bool drain_posted = false;
  bool finished = false;  // the producer returned
  bool whole = false;     // ... and its stream was complete
  bool failed = false;    // the socket failed or closed: stop producing
};

enum class Phase { kIdle, kHeader, kBody, kHandling, kWriting, kLinger, kClosed };

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Loop& loop, tcp::socket socket, bool counted)
      : loop_(loop), socket_(std::move(socket)), timer_(loop.io), counted_(counted) {
    (counted_ ? loop_.open : loop_.refusing)++;
  }
  ~Session() {
    loop_.sessions.erase(this);
    (counted_ ? loop_.open : loop_.refusing)--;
  }

  void Start() {
    loop_.sessions.emplace(this, weak_from_this());
    if (!counted_) {
      return Respond(ErrorResponse(503, "the server has " + std::to_string(loop_.open) +
                                            " connections open, its limit (--max-connections)"),
                     false);
    }
    WaitForRequest();
  }
  // On Stop: a connection between requests closes now; the others after their response.
  void CloseIfIdle() {
    if (phase_ == Phase::kIdle) Close();
  }

 private:
  std::shared_ptr<Session> Self() { return shared_from_this(); }

  // The connection's deadlines share one timer that is seldom re-armed (decision 226). Asio
  // re-arms its timer descriptor (timerfd_settime, a system call) whenever a timer becomes the
  // earliest, so re-arming one per phase cost a lone keep-alive connection two calls per request.
  // Instead each phase sets deadline_, and the timer waits again only when the new deadline is
  // earlier than the time it already waits for; when it fires before deadline_ it waits again
  // for deadline_. A deadline still fires at its time; a keep-alive connection's requests, each
  // deadline later than the last, re-arm nothing. The clock is the one Asio's timers read (the
  // server cannot reach the Runtime's: only include/omnigraph/ is visible to it).
  using Clock = asio::steady_timer::clock_type;

  // Closes the connection when `seconds` pass before the phase ends (Arm again, or Disarm).
  void Arm(int seconds) {
    timed_out_ = false;
    deadline_ = Clock::now() + std::chrono::seconds(seconds);
    if (timer_waiting_ && timer_.expiry() <= deadline_) return;  // it fires first, then waits on
    WaitForDeadline();
  }
  // No deadline until the next Arm; a wait pending ends at its time and does nothing.
  void Disarm() { deadline_ = Clock::time_point::max(); }

  void WaitForDeadline() {
    timer_waiting_ = true;
    timer_.expires_at(deadline_);  // ends a pending wait (operation_aborted), replaced by this one
    timer_.async_wait([self = Self(), armed = ++armed_](beast::error_code ec) {
      if (armed != self->armed_) return;  // a later wait replaced this one, or Close ended it
      self->timer_waiting_ = false;
      if (ec || self->deadline_ == Clock::time_point::max()) return;
      if (Clock::now() < self->deadline_) return self->WaitForDeadline();
      self->timed_out_ = true;
      beast::error_code ignored;
      self->socket_.cancel(ignored);
      if (self->phase_ == Phase::kIdle || self->phase_ == Phase::kLinger ||
          self->phase_ == Phase::kWriting) {
        self->Close();
      }
    });
  }

  void WaitForRequest() {
    if (loop_.stopping) return Close();
    phase_ = Phase::kIdle;
    parser_.reset();
    if (buffer_.size() > 0) return ReadHeader();  // A pipelined request is already here.
    buffer_.shrink_to_fit();                      // An idle connection holds no buffer.
    Arm(loop_.options.keep_alive_timeout_s);
    socket_.async_wait(tcp::socket::wait_read, [self = Self()](beast::error_code ec) {
      if (ec || self->phase_ != Phase::kIdle) return self->Close();
      self->ReadHeader();
    });
  }

  void ReadHeader() {
    phase_ = Phase::kHeader;
    head_ = false;
    version_ = 11;
    keep_alive_ = true;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(kHeaderBytesMax));
    parser_->body_limit(
        std::max(loop_.service.options().body_bytes_max, loop_.service.options().load_bytes_max));
    Arm(loop_.options.header_timeout_s);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = Self()](beast::error_code ec, size_t bytes) {
                              if (ec) return self->ReadFailed(ec);
                              // Beast's own limit lets a few bytes more through: exact here.
                              if (bytes > kHeaderBytesMax) {
                                return self->ReadFailed(http::error::header_limit);
                              }
                              self->OnHeader();
                            });
  }

  // A read that failed: a timeout, a limit or malformed input get their status (the connection
  // then closes); a client that went away is just closed.
  void ReadFailed(beast::error_code ec) {
    if (timed_out_) {
      return Respond(ErrorResponse(408, std::string("the request's ") +
                                            (phase_ == Phase::kBody ? "body" : "header") +
                                            " was not received in time"),
                     false);
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return Respond(ErrorResponse(431, "the request header is over the limit of " +
                                            std::to_string(kHeaderBytesMax) + " bytes"),
                     false);
    }
    if (ec == http::error::body_limit) {  // A chunked body: its length was not declared.
      api::Json out = {{"error", "the request body is over the limit of " +
                                     std::to_string(body_limit_) + " bytes"},
                       {"code", "bad_request"},
                       {"resource_limit", {{"resource", "request body"}, {"limit", body_limit_}}}};
      return Respond(JsonResponse(out, 413), false);
    }
    const bool gone = ec == http::error::end_of_stream || ec == http::error::partial_message ||
                      ec == asio::error::eof || ec == asio::error::connection_reset ||
                      ec == asio::error::operation_aborted || ec == asio::error::broken_pipe;
    if (gone) return Close();
    Respond(ErrorResponse(400, "malformed request (" + ec.message() + ")"), false);
  }

  void OnHeader() {
    const auto& header = parser_->get();
    if (header.target().size() > kTargetBytesMax) {
      return Respond(ErrorResponse(414, "the request target is over the limit of " +
                                            std::to_string(kTargetBytesMax) + " bytes"),
                     false);
    }
    version_ = header.version();
    keep_alive_ = header.keep_alive();
    request_ = Convert(header);
    head_ = request_.method == "HEAD";
    if (head_) request_.method = "GET";
    request_.head = head_;
    Admission admission = loop_.service.Admit(request_, &auth_memo_);
    // A refusal before the body is read closes the connection: the unread body cannot be
    // skipped. Without a body, the connection stays.
    if (admission.refused) return Respond(std::move(*admission.refused), parser_->is_done());
    body_limit_ = admission.body_bytes_max;
    on_loop_ = admission.on_loop;
    checked_ = std::move(admission.checked);
    parser_->body_limit(body_limit_);
    if (parser_->is_done()) return Dispatch();
    if (Lower(request_.Header("expect")) == "100-continue") {
      phase_ = Phase::kWriting;
      Arm(loop_.options.write_timeout_s);
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      return asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                               [self = Self()](beast::error_code ec, size_t) {
                                 if (ec) return self->Close();
                                 self->ReadBody();
                               });
    }
    ReadBody();
  }

  void ReadBody() {
    phase_ = Phase::kBody;
    // A body that came with its header (a small request's usual case) is parsed from the buffer
    // at once: no body deadline to arm and cancel, no read that would complete immediately.
    while (!parser_->is_done() && buffer_.size() > 0) {
      beast::error_code ec;
      const size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == http::error::need_more || (!ec && used == 0)) break;
      if (ec) return ReadFailed(ec);
    }
    if (parser_->is_done()) {
      request_.body = std::move(parser_->get().body());
      return Dispatch();
    }
    Arm(loop_.options.body_timeout_s);
    http::async_read(socket_, buffer_, *parser_, [self = Self()](beast::error_code ec, size_t) {
      if (ec) return self->ReadFailed(ec);
      self->request_.body = std::move(self->parser_->get().body());
      self->Dispatch();
    });
  }

  // Handles the request: on the loop for the server's own routes, on a worker otherwise.
  void Dispatch() {
    ++requests_;
    Disarm();
    phase_ = Phase::kHandling;
    head_sent_ = false;
    {
      std::lock_guard<std::mutex> lock(pipe_.mu);
      pipe_.queued.clear();
      pipe_.drain_posted = pipe_.finished = pipe_.whole = pipe_.failed = false;
    }
    if (on_loop_) return Respond(loop_.service.Handle(request_, std::move(checked_)), true);
    const std::string& auth = request_.Header("authorization");
    const size_t key = std::hash<std::string>{}(auth.empty() ? peer_ : "bearer " + auth);
    // Nothing queued and nothing running: the request would go to an idle worker, a thread
    // handoff on its path; the loop runs it instead (decision 220). Never on the standby, which
    // runs the loop only while the loop thread is inside such a request.
    if (!loop_.relief.Relieved() && loop_.queue.TryStart(key)) return RunHere(key);
    loop_.queue.Push(key, [self = Self(), guard = asio::make_work_guard(loop_.io)]() mutable {
      Session& s = *self;
      HttpResponse response = s.HandleRequest();
      if (!response.stream) return s.Reply(std::move(self), std::move(response));
      s.Produce(std::move(self), std::move(response));
    });
  }

  HttpResponse HandleRequest() {
    try {
      return loop_.service.Handle(request_, std::move(checked_));
    } catch (...) {
      return ErrorResponse(500, "internal error while handling the request");
    }
  }

  // On the loop: runs the request here and answers it as the trivial server would, with no
  // thread handoff. The standby takes the loop over if this passes LoopRelief::kLease, so other
  // connections wait at most that long; End returns once the loop is this thread's again.
  void RunHere(size_t key) {
    loop_.relief.Begin();
    HttpResponse response = HandleRequest();
    loop_.relief.End();
    loop_.queue.Done(key);
    if (response.stream) {
      // A stream's producer waits while the loop writes what it queued: it runs on a worker.
      // The task gives its reference to the session away (to the loop, through Produce), so that
      // the session is never destroyed on the worker: its destructor touches the loop's state.
      return loop_.queue.Push(key, [self = Self(), response = std::move(response),
                                    guard = asio::make_work_guard(loop_.io)]() mutable {
        Session& s = *self;
        s.Produce(std::move(self), std::move(response));
      });
    }
    const bool keep = KeepAlive(true);
    auto wire = std::make_shared<Wire>(ToWire(response, keep));
    bool failed = false;
    const size_t sent = SendNow(*wire, failed);
    if (failed) return Close();
    Send(std::move(wire), sent, keep);
  }

  // On a worker: sends the head through the loop, then runs the stream into the pipe.
  void Produce(std::shared_ptr<Session> self, HttpResponse response) {
    auto stream = std::move(response.stream);
    asio::post(loop_.io,
               [self, r = std::move(response)]() mutable { self->StartStream(std::move(r)); });
    bool whole = false;
    try {
      whole = stream([this](std::string_view chunk) { return Push(chunk); });
    } catch (...) {
      whole = false;
    }
    std::unique_lock<std::mutex> lock(pipe_.mu);
    pipe_.finished = true;
    pipe_.whole = whole;
    PostDrain(lock, std::move(self));
  }

  // On a worker: queues a chunk; waits while too much is queued. False when the client is gone.
  bool Push(std::string_view chunk) {
    std::unique_lock<std::mutex> lock(pipe_.mu);
    if (pipe_.failed) return false;
    pipe_.queued.append(chunk);
    PostDrain(lock, Self());
    pipe_.cv.wait(lock,
                  [this] { return pipe_.failed || pipe_.queued.size() < kStreamQueuedBytesMax; });
    return !pipe_.failed;
  }

  void PostDrain(std::unique_lock<std::mutex>&, std::shared_ptr<Session> self) {
    if (pipe_.drain_posted) return;
    pipe_.drain_posted = true;
    asio::post(loop_.io, [self = std::move(self)] { self->Drain(); });
  }

  bool KeepAlive(bool may_keep) const {
    return may_keep && keep_alive_ && counted_ && !loop_.stopping &&
           requests_ < kKeepAliveRequestsMax;
  }

  // A whole response's bytes: the status line and fields, and the body. The head is written
  // directly (server/response_head.h) when it can be, else by Beast's serializer: the same bytes.
  struct Wire {
    std::string head;
    std::string body;
    size_t size() const { return head.size() + body.size(); }
  };
  Wire ToWire(HttpResponse& response, bool keep) {
    Wire wire;
    const int keep_alive_s = loop_.options.keep_alive_timeout_s;
    if (!WriteResponseHead(response, response.body.size(), version_, keep, keep_alive_s,
                           wire.head)) {
      wire.head =
          beast_response::SerializedHead(response, response.body, version_, keep, keep_alive_s);
    }
    if (!head_) wire.body = std::move(response.body);  // A HEAD's Content-Length stays the GET's.
    return wire;
  }

  // Sends a whole response; then the next request, or a lingering close.
  void Respond(HttpResponse response, bool may_keep) {
    const bool keep = KeepAlive(may_keep);
    Send(std::make_shared<Wire>(ToWire(response, keep)), 0, keep);
  }

  // On a worker: a handler's whole response. Written to the socket from here when the socket
  // takes it all at once (a response within the kernel's send buffer, the usual case), so the
  // client need not wait for the loop to wake and write it: one thread handoff fewer on every
  // request's path (docs/design/server.md "Connections, limits and threads"). The loop takes the
  // connection back either way, and writes what the socket did not take under the write deadline.
  // The loop leaves the socket alone while a worker has the request (phase kHandling), so the
  // one non-blocking send here meets no other operation on it.
  void Reply(std::shared_ptr<Session> self, HttpResponse response) {
    const bool keep = KeepAlive(true);
    auto wire = std::make_shared<Wire>(ToWire(response, keep));
    bool failed = false;
    const size_t sent = SendNow(*wire, failed);
    asio::post(loop_.io, [self = std::move(self), wire = std::move(wire), sent, keep, failed] {
      if (failed) return self->Close();
      self->Send(wire, sent, keep);
    });
  }

  // One non-blocking send of the head and body together (one system call); the bytes the socket
  // took. `failed` when the connection is gone (not when the socket is merely full).
  size_t SendNow(Wire& wire, bool& failed) {
    iovec parts[2] = {{wire.head.data(), wire.head.size()}, {wire.body.data(), wire.body.size()}};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = wire.body.empty() ? 1 : 2;
    const ssize_t n = ::sendmsg(socket_.native_handle(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    failed = n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

  // On the loop: writes `wire` from byte `sent` on; then the next request, or a lingering close.
  void Send(std::shared_ptr<Wire> wire, size_t sent, bool keep) {
    if (sent == wire->size()) return keep ? WaitForRequest() : Linger();
    phase_ = Phase::kWriting;
    Arm(loop_.options.write_timeout_s);
    const size_t in_head = std::min(sent, wire->head.size());
    const std::array<asio::const_buffer, 2> rest = {asio::buffer(wire->head) + in_head,
                                                    asio::buffer(wire->body) + (sent - in_head)};
    asio::async_write(socket_, rest, [self = Self(), wire, keep](beast::error_code ec, size_t) {
      if (ec) return self->Close();
      keep ? self->WaitForRequest() : self->Linger();
    });
  }

  void StartStream(HttpResponse head) {
    const bool keep = KeepAlive(true);
    stream_head_ = std::make_unique<http::response<http::empty_body>>(
        static_cast<http::status>(head.status), version_);
    auto full = beast_response::Head(head, version_, keep, loop_.options.keep_alive_timeout_s);
    for (const auto& field : full) stream_head_->insert(field.name_string(), field.value());
    stream_raw_ = head.content_length.has_value();
    if (stream_raw_) {
      stream_head_->content_length(*head.content_length);
    } else {
      stream_head_->chunked(true);
    }
    stream_keep_ = keep;
    stream_sr_ = std::make_unique<http::response_serializer<http::empty_body>>(*stream_head_);
    phase_ = Phase::kWriting;
    Arm(loop_.options.write_timeout_s);
    http::async_write_header(socket_, *stream_sr_, [self = Self()](beast::error_code ec, size_t) {
      if (ec) return self->Close();
      self->Disarm();  // The producer may take its time; each write has its own deadline.
      self->head_sent_ = true;
      self->Drain();
    });
  }

  // On the loop: writes what the producer queued as one chunk; ends the stream when it is done.
  void Drain() {
    if (!head_sent_ || writing_ || phase_ == Phase::kClosed) return;
    bool finished = false, whole = false;
    {
      std::lock_guard<std::mutex> lock(pipe_.mu);
      pipe_.drain_posted = false;
      out_.swap(pipe_.queued);
      pipe_.queued.clear();
      finished = pipe_.finished;
      whole = pipe_.whole;
    }
    pipe_.cv.notify_all();
    if (!out_.empty()) {
      writing_ = true;
      Arm(loop_.options.write_timeout_s);
      auto wrote = [self = Self()](beast::error_code ec, size_t) {
        self->writing_ = false;
        self->out_.clear();
        if (ec) return self->Close();
        self->Disarm();
        self->Drain();
      };
      if (stream_raw_) return asio::async_write(socket_, asio::buffer(out_), std::move(wrote));
      return asio::async_write(socket_, http::make_chunk(asio::buffer(out_)), std::move(wrote));
    }
    if (!finished) return;
    // A stream that stopped early ends without its last chunk (or short of its Content-Length):
    // the client sees a truncated response rather than a short one that looks complete.
    if (!whole) return Close();
    if (stream_raw_) return stream_keep_ ? WaitForRequest() : Linger();
    writing_ = true;
    Arm(loop_.options.write_timeout_s);
    asio::async_write(socket_, http::make_chunk_last(),
                      [self = Self()](beast::error_code ec, size_t) {
                        self->writing_ = false;
                        if (ec) return self->Close();
                        self->stream_keep_ ? self->WaitForRequest() : self->Linger();
                      });
  }

  // Half-closes, then reads and drops what the client still sends, for a moment, before closing.
  void Linger() {
    phase_ = Phase::kLinger;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    Arm(kLingerS);
    Discard();
  }
  void Discard() {
    socket_.async_read_some(asio::buffer(loop_.discard),
                            [self = Self()](beast::error_code ec, size_t) {
                              if (ec) return self->Close();
                              self->Discard();
                            });
  }

 public:
  void Close() {
    if (phase_ == Phase::kClosed) return;
    phase_ = Phase::kClosed;
    // The pending wait, if any, ends now: it holds the session, which must not outlive its socket
    // by a deadline (a closed connection would count against the limit until then).
    Disarm();
    ++armed_;
    timer_waiting_ = false;
    timer_.cancel();
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    std::lock_guard<std::mutex> lock(pipe_.mu);
    pipe_.failed = true;
    pipe_.cv.notify_all();
  }
  void set_peer(std::string peer) { peer_ = std::move(peer); }

 private:
  Loop& loop_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  const bool counted_;
  std::string peer_;
  Phase phase_ = Phase::kIdle;
  Clock::time_point deadline_ = Clock::time_point::max();  // none while max
  uint64_t armed_ = 0;          // the wait that counts; one before it is ignored
  bool timer_waiting_ = false;  // a wait is pending on timer_ (for timer_.expiry())
  bool timed_out_ = false;
  beast::flat_buffer buffer_{kReadBufferBytesMax};
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpRequest request_;
  std::optional<CheckedRequest> checked_;  // Admit's finding, for Handle
  AuthMemo auth_memo_;                     // the actor of this connection's bearer token
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool head_ = false;
  bool on_loop_ = false;
  uint64_t body_limit_ = 0;
  size_t requests_ = 0;
  // A streamed response.
  Pipe pipe_;
  std::unique_ptr<http::response<http::empty_body>> stream_head_;
  std::unique_ptr<http::response_serializer<http::empty_body>> stream_sr_;
  bool stream_keep_ = false;
  bool stream_raw_ = false;  // The stream has a Content-Length: its bytes go out unchunked.
  bool head_sent_ = false;
  bool writing_ = false;
  std::string out_;
};

void Accept(Loop& loop) {
  loop.acceptor.async_accept([&loop](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || loop.stopping) return;
    if (ec) {
      // Out of file descriptors, or a connection reset before it was accepted: try again
      // shortly (the listening socket stays readable, so at once would spin).
      loop.accept_retry.expires_after(kAcceptRetry);
      loop.accept_retry.async_wait([&loop](beast::error_code wait) {
        if (!wait) Accept(loop);
      });
      return;
    }
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    const bool counted = loop.open < loop.options.connections_max;
    if (!counted && loop.refusing >= kRefusingMax) {
      socket.close(ignored);
    } else {
      const auto peer = socket.remote_endpoint(ignored);
      auto session = std::make_shared<Session>(loop, std::move(socket), counted);
      session->set_peer(peer.address().to_string());
      session->Start();
    }
    Accept(loop);
  });
}

// Runs the loop until it has no work left, as io_context::run does, but after each piece of work
// it polls (epoll_wait with no timeout) for up to the poll window before it sleeps, so that a
// client's next request, which usually comes within tens of microseconds of its answer, finds the
// loop's core awake: on an idle machine waking an idle core costs more than the request's own work
// (decision 231). It polls only while no worker runs a request (the cores are then the workers')
// and while the machine has a core to spare (SpareCore). Past the window it sleeps in epoll_wait
// as before, so an idle server uses no CPU.
void RunLoop(Loop& loop) {
  using Clock = asio::steady_timer::clock_type;
  Clock::time_point worked = Clock::now();
  while (!loop.io.stopped()) {
    const Clock::time_point looked = Clock::now();
    if (loop.io.poll() > 0) {
      loop.poll_window.Idle(looked - worked);
      worked = Clock::now();
      continue;
    }
    if (looked - worked < loop.poll_window.window() && loop.queue.Running() == 0 &&
        loop.spare_core.Spare(looked.time_since_epoch())) {
      continue;
    }
    // Sleeps until an event, and runs its handler (for a request, the short one that starts
    // reading it): the time slept is measured with it, a little long.
    if (loop.io.run_one() > 0) loop.poll_window.Idle(Clock::now() - worked);
    worked = Clock::now();
  }
}

}  // namespace

struct Listener::Impl {
  Impl(const Service& service, ListenerOptions options) : loop(service, options) {}
  Loop loop;
  int stop_pipe[2] = {-1, -1};
  std::optional<asio::posix::stream_descriptor> stop_reader;
  char stop_byte = 0;
};

Listener::Listener(const Service& service, ListenerOptions options)
    : impl_(std::make_unique<Impl>(service, options)) {
  if (::pipe(impl_->stop_pipe) == 0) {
    impl_->stop_reader.emplace(impl_->loop.io, impl_->stop_pipe[0]);
  }
}

Listener::~Listener() {
  impl_->stop_reader.reset();  // closes stop_pipe[0]
  if (impl_->stop_pipe[1] >= 0) ::close(impl_->stop_pipe[1]);
}

api::Result<int> Listener::Bind(const std::string& host, int port) {
  tcp::acceptor& acceptor = impl_->loop.acceptor;
  beast::error_code ec;
  const auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (!ec) {
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) return static_cast<int>(acceptor.local_endpoint().port());
  }
  beast::error_code ignored;
  acceptor.close(ignored);
  return api::Status(
      api::Code::kConfiguration,
      "cannot listen on " + host + ":" + std::to_string(port) + " (" + ec.message() + ")");
}

bool Listener::Run() {
  Loop& loop = impl_->loop;
  if (!loop.acceptor.is_open() || !impl_->stop_reader) return false;
  auto on_stop = [&loop, this](beast::error_code, size_t) {
    loop.stopping = true;
    beast::error_code ignored;
    loop.acceptor.close(ignored);
    loop.accept_retry.cancel();
    impl_->stop_reader->close(ignored);
    std::vector<std::shared_ptr<Session>> sessions;
    for (auto& [raw, weak] : loop.sessions) {
      if (auto s = weak.lock()) sessions.push_back(std::move(s));
    }
    for (auto& s : sessions) s->CloseIfIdle();
  };
  impl_->stop_reader->async_read_some(asio::buffer(&impl_->stop_byte, 1), on_stop);
  Accept(loop);
  // The workers, and the loop's standby (decision 220): one thread more than the workers.
  asio::thread_pool workers(loop.options.workers + 1);
  asio::post(workers,
             [&loop] { loop.relief.Stand([&loop] { loop.io.run_one_for(LoopRelief::kStep); }); });
  for (size_t i = 0; i < loop.options.workers; ++i) {
    asio::post(workers, [&loop] {
      while (true) {
        auto [key, task] = loop.queue.Pop();
        if (!task) break;
        task();
        loop.queue.Done(key);
      }
    });
  }
  RunLoop(loop);
  loop.queue.Stop();
  loop.relief.Stop();
  workers.join();
  return !loop.accept_failed;
}

void Listener::Stop() {
  // write() is async-signal-safe; the loop reads the byte and stops.
  const char byte = 's';
  [[maybe_unused]] const ssize_t n = ::write(impl_->stop_pipe[1], &byte, 1);
}

}  // namespace omnigraph::server

// HTTP/1.1 on the wire (RFC 9112): an incremental request parser and the response writer the
// server uses over Pistache's TCP transport. Plain C++ with no I/O, so every rule here is
// unit-tested byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <certsteward/adapters/http/http_types.hpp>

namespace certsteward::adapters::http {

struct ParserLimits {
  std::size_t max_head_bytes = 64 * 1024;    // request line + headers
  std::size_t max_headers = 100;             // header lines
  std::size_t max_body_bytes = 1024 * 1024;  // decoded body
};

// What the parser knows about the request beyond what the API sees.
struct RequestMeta {
  int minor_version = 1;   // HTTP/1.<minor>
  bool keep_alive = true;  // the connection may carry another request after this one
};

class RequestParser {
 public:
  enum class Result {
    need_more,  // feed more bytes
    request,    // a whole request is in `out`; call next() again for a pipelined one
    error,      // error_status()/error_message() say why; the connection must close
  };

  explicit RequestParser(ParserLimits limits = {}) : limits_(limits) {}

  // Appends received bytes. Bytes that arrive after an error are ignored.
  void feed(const char* data, std::size_t size);
  Result next(HttpRequest& out, RequestMeta& meta);

  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }
  // The head of the current request asked for "100 Continue" and its body has not arrived; the
  // caller sends the interim response once (mark_continue_sent) before the client sends it.
  bool continue_expected() const { return expect_continue_ && !continue_sent_; }
  void mark_continue_sent() { continue_sent_ = true; }
  // Part of a request has arrived (a timeout then means a stalled client, not an idle one).
  bool partial() const { return stage_ != Stage::head || pos_ < buffer_.size(); }
  // Received bytes not consumed yet (pipelined requests waiting, or the current one).
  std::size_t buffered() const { return buffer_.size() - pos_; }

 private:
  enum class Stage { head, body, chunk_size, chunk_data, chunk_end, trailers, failed };

  Result fail(int status, std::string message);
  Result parseHead(HttpRequest& out, RequestMeta& meta);
  bool readLine(std::string_view& line, std::size_t maxLength, bool& tooLong);
  void compact();
  bool takeBody();

  ParserLimits limits_;
  HttpRequest current_;  // the request being read
  RequestMeta currentMeta_;
  std::string buffer_;
  std::size_t pos_ = 0;      // bytes of buffer_ already consumed
  std::size_t scanned_ = 0;  // head bytes already searched for its end
  Stage stage_ = Stage::head;
  std::size_t remaining_ = 0;  // body or chunk bytes still to read
  bool expect_continue_ = false;
  bool continue_sent_ = false;
  int error_status_ = 0;
  std::string error_message_;
};

// Splits a query string into `query` (percent-decoded, '+' as space; the first of repeated
// names wins).
void parseQuery(std::string_view query, std::map<std::string, std::string>& out);
// The Cookie header's name=value pairs.
void parseCookies(std::string_view header, std::map<std::string, std::string>& out);

// The status line and headers of a response, then its body unless `head_only` (HEAD, 1xx, 204
// and 304 carry none). `close` adds "Connection: close"; `keep_alive_1_0` says keep-alive to an
// HTTP/1.0 client that asked for it.
struct ResponseFraming {
  std::string_view request_id;
  bool head_only = false;
  bool close = false;
  bool keep_alive_1_0 = false;
};
// The status line, headers and body. A response with a `stream` is framed with
// `Transfer-Encoding: chunked` and its `body` (if any) written as the first chunk; the rest
// follows through appendChunk and appendLastChunk.
void appendResponse(std::string& out, const HttpResponse& response, const ResponseFraming& framing);
// One chunk of a chunked body (RFC 9112 7.1); nothing for empty `data`, which would end it.
void appendChunk(std::string& out, std::string_view data);
// The chunk that ends a chunked body.
void appendLastChunk(std::string& out);
std::string_view reasonPhrase(int status);

}  // namespace certsteward::adapters::http

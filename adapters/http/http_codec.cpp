#include <certsteward/adapters/http/http_codec.hpp>

#include <certsteward/domain/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <ctime>

namespace certsteward::adapters::http {
namespace {

constexpr std::size_t kMaxRequestLine = 8 * 1024;
constexpr std::size_t kMaxChunkLine = 1024;

// RFC 9110 5.6.2: token characters.
bool isTchar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return isTchar(static_cast<unsigned char>(c)); });
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return domain::asciiLower(x) == domain::asciiLower(y);
         });
}

// Calls f(token) for each comma-separated, trimmed, non-empty element.
template <typename F>
void forEachListElement(std::string_view value, F&& f) {
  while (!value.empty()) {
    const auto comma = value.find(',');
    const auto element = domain::trimBlanks(value.substr(0, comma));
    if (!element.empty()) f(element);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  const char l = domain::asciiLower(c);
  if (l >= 'a' && l <= 'f') return l - 'a' + 10;
  return -1;
}

std::string decodeComponent(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%' && i + 2 < s.size() && hexValue(s[i + 1]) >= 0 && hexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(hexValue(s[i + 1]) * 16 + hexValue(s[i + 2]));
      i += 2;
    } else {
      out += c;  // a stray '%' stays as it is
    }
  }
  return out;
}

// "Sun, 06 Nov 1994 08:49:37 GMT", formatted once per second per thread.
std::string_view httpDate() {
  thread_local std::time_t cachedSecond = 0;
  thread_local std::array<char, 32> cached{};
  thread_local std::size_t length = 0;
  const std::time_t now = std::time(nullptr);
  if (now != cachedSecond || length == 0) {
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm tm{};
    gmtime_r(&now, &tm);
    const int n = std::snprintf(cached.data(), cached.size(), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                                kDays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon],
                                tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    length = n > 0 ? static_cast<std::size_t>(n) : 0;
    cachedSecond = now;
  }
  return {cached.data(), length};
}

void appendNumber(std::string& out, unsigned long long value) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  (void)ec;
  out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
}

// A header line never carries a line break that a handler let through (header injection).
bool safeHeaderText(std::string_view s) {
  return s.find_first_of("\r\n", 0) == std::string_view::npos &&
         s.find('\0') == std::string_view::npos;
}

}  // namespace

void RequestParser::feed(const char* data, std::size_t size) {
  if (stage_ == Stage::failed) return;
  if (pos_ > 0 && pos_ == buffer_.size()) {
    buffer_.clear();
    scanned_ = pos_ = 0;
  }
  buffer_.append(data, size);
}

RequestParser::Result RequestParser::fail(int status, std::string message) {
  stage_ = Stage::failed;
  error_status_ = status;
  error_message_ = std::move(message);
  buffer_.clear();
  buffer_.shrink_to_fit();
  pos_ = scanned_ = 0;
  return Result::error;
}

// Drops consumed bytes when that is cheap (nothing left) or pays for itself (more consumed than
// left): with many pipelined requests buffered, erasing after each one would be quadratic.
void RequestParser::compact() {
  if (pos_ == 0) return;
  if (pos_ == buffer_.size()) {
    buffer_.clear();
  } else if (pos_ >= 4096 && pos_ * 2 >= buffer_.size()) {
    buffer_.erase(0, pos_);
  } else {
    return;
  }
  scanned_ = scanned_ > pos_ ? scanned_ - pos_ : 0;
  pos_ = 0;
}

// Moves up to remaining_ buffered bytes into the body; true once remaining_ is reached.
bool RequestParser::takeBody() {
  const std::size_t n = std::min(remaining_, buffer_.size() - pos_);
  current_.body.append(buffer_, pos_, n);
  pos_ += n;
  remaining_ -= n;
  if (remaining_ > 0) {
    compact();
    return false;
  }
  return true;
}

bool RequestParser::readLine(std::string_view& line, std::size_t maxLength, bool& tooLong) {
  tooLong = false;
  const auto nl = buffer_.find('\n', pos_);
  if (nl == std::string::npos) {
    tooLong = buffer_.size() - pos_ > maxLength + 1;
    return false;
  }
  std::size_t end = nl;
  if (end > pos_ && buffer_[end - 1] == '\r') --end;
  if (end - pos_ > maxLength) {
    tooLong = true;
    return false;
  }
  line = std::string_view(buffer_).substr(pos_, end - pos_);
  pos_ = nl + 1;
  return true;
}

RequestParser::Result RequestParser::next(HttpRequest& out, RequestMeta& meta) {
  for (;;) {
    switch (stage_) {
      case Stage::failed:
        return Result::error;
      case Stage::head: {
        const auto r = parseHead(current_, currentMeta_);
        if (r != Result::request) return r;
        break;  // on to the body stage parseHead chose
      }
      case Stage::body: {
        if (!takeBody()) return Result::need_more;
        stage_ = Stage::head;
        out = std::move(current_);
        meta = currentMeta_;
        current_ = HttpRequest{};
        expect_continue_ = continue_sent_ = false;
        compact();
        return Result::request;
      }
      case Stage::chunk_size: {
        std::string_view line;
        bool tooLong = false;
        if (!readLine(line, kMaxChunkLine, tooLong)) {
          return tooLong ? fail(400, "a chunk size line is too long") : Result::need_more;
        }
        const auto digits = domain::trimBlanks(line.substr(0, line.find(';')));
        std::size_t size = 0;
        if (digits.empty() || digits.size() > 15) return fail(400, "a chunk size is not valid");
        for (const char c : digits) {
          const int v = hexValue(c);
          if (v < 0) return fail(400, "a chunk size is not valid");
          size = size * 16 + static_cast<std::size_t>(v);
        }
        if (current_.body.size() + size > limits_.max_body_bytes) {
          return fail(413, "the request body is larger than server.max_request_bytes");
        }
        remaining_ = size;
        stage_ = size == 0 ? Stage::trailers : Stage::chunk_data;
        break;
      }
      case Stage::chunk_data: {
        if (!takeBody()) return Result::need_more;
        stage_ = Stage::chunk_end;
        break;
      }
      case Stage::chunk_end: {
        std::string_view line;
        bool tooLong = false;
        if (!readLine(line, 0, tooLong)) {
          return tooLong ? fail(400, "a chunk does not end with CRLF") : Result::need_more;
        }
        stage_ = Stage::chunk_size;
        break;
      }
      case Stage::trailers: {
        std::string_view line;
        bool tooLong = false;
        if (!readLine(line, kMaxRequestLine, tooLong)) {
          return tooLong ? fail(431, "a trailer field is too long") : Result::need_more;
        }
        if (line.empty()) {
          // Trailer fields are read and dropped; the body is complete.
          remaining_ = 0;
          stage_ = Stage::body;
        }
        break;
      }
    }
  }
}

RequestParser::Result RequestParser::parseHead(HttpRequest& req, RequestMeta& meta) {
  // RFC 9112 2.2: empty lines before the request line are ignored.
  while (pos_ < buffer_.size() && (buffer_[pos_] == '\n' || buffer_[pos_] == '\r')) {
    if (buffer_[pos_] == '\r' && pos_ + 1 >= buffer_.size()) return Result::need_more;
    if (buffer_[pos_] == '\r' && buffer_[pos_ + 1] != '\n') return fail(400, "malformed request");
    pos_ += buffer_[pos_] == '\r' ? 2 : 1;
  }
  // Find the empty line that ends the head (CRLF CRLF, LF LF tolerated).
  std::size_t end = std::string::npos;
  std::size_t i = std::max(scanned_, pos_);
  for (; i < buffer_.size(); ++i) {
    if (buffer_[i] != '\n') continue;
    if (i + 1 >= buffer_.size()) break;
    if (buffer_[i + 1] == '\n') {
      end = i + 2;
      break;
    }
    if (buffer_[i + 1] == '\r') {
      if (i + 2 >= buffer_.size()) break;
      if (buffer_[i + 2] == '\n') {
        end = i + 3;
        break;
      }
    }
  }
  if (end == std::string::npos) {
    scanned_ = i;
    const std::size_t pending = buffer_.size() - pos_;
    if (pending > kMaxRequestLine &&
        std::string_view(buffer_).substr(pos_, kMaxRequestLine + 2).find('\n') ==
            std::string_view::npos) {
      return fail(414, "the request line is too long");
    }
    if (pending > limits_.max_head_bytes) {
      return fail(431, "the request header fields are too large");
    }
    return Result::need_more;
  }
  if (end - pos_ > limits_.max_head_bytes) {
    return fail(431, "the request header fields are too large");
  }

  req = HttpRequest{};
  meta = RequestMeta{};
  std::string_view line;
  bool tooLong = false;
  if (!readLine(line, kMaxRequestLine, tooLong)) return fail(414, "the request line is too long");

  // request-line = method SP request-target SP HTTP-version
  const auto sp1 = line.find(' ');
  const auto sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp1 == sp2) return fail(400, "malformed request line");
  const auto method = line.substr(0, sp1);
  auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const auto version = line.substr(sp2 + 1);
  if (!isToken(method) || method.size() > 32) return fail(400, "malformed request method");
  if (version == "HTTP/1.1") {
    meta.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    meta.minor_version = 0;
  } else if (version.size() == 8 && version.starts_with("HTTP/") && version[6] == '.' &&
             std::isdigit(static_cast<unsigned char>(version[5])) &&
             std::isdigit(static_cast<unsigned char>(version[7]))) {
    return fail(505, "only HTTP/1.0 and HTTP/1.1 are supported");
  } else {
    return fail(400, "malformed request line");
  }
  if (target.empty() || std::any_of(target.begin(), target.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u >= 0x7f;
      })) {
    return fail(400, "malformed request target");
  }
  // absolute-form (RFC 9112 3.2.2): keep the path and query.
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (target.size() >= scheme.size() &&
        equalsIgnoreCase(target.substr(0, scheme.size()), scheme)) {
      const auto slash = target.find('/', scheme.size());
      const auto query = target.find('?', scheme.size());
      if (slash == std::string_view::npos || (query != std::string_view::npos && query < slash)) {
        target = query == std::string_view::npos ? std::string_view("/") : target.substr(query);
      } else {
        target = target.substr(slash);
      }
      break;
    }
  }
  if (target.front() != '/' && target != "*" && target.front() != '?') {
    return fail(400, "malformed request target");
  }
  if (const auto hash = target.find('#'); hash != std::string_view::npos) {
    target = target.substr(0, hash);
  }
  const auto question = target.find('?');
  req.method = std::string(method);
  req.path = std::string(target.substr(0, question));
  if (req.path.empty()) req.path = "/";
  if (question != std::string_view::npos) parseQuery(target.substr(question + 1), req.query);

  bool close = false;
  bool keepAlive = false;
  bool chunked = false;
  bool hasTransferEncoding = false;
  bool hasLength = false;
  std::size_t length = 0;
  std::size_t count = 0;
  while (pos_ < end) {
    if (!readLine(line, limits_.max_head_bytes, tooLong)) {
      return fail(431, "the request header fields are too large");
    }
    if (line.empty()) break;
    if (++count > limits_.max_headers) return fail(431, "too many request header fields");
    if (line.front() == ' ' || line.front() == '\t') {
      return fail(400, "folded header lines are not accepted");
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon))) {
      return fail(400, "malformed header field");
    }
    const auto value = domain::trimBlanks(line.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return (u < 0x20 && u != '\t') || u == 0x7f;
        })) {
      return fail(400, "malformed header field");
    }
    const std::string name = domain::asciiLower(line.substr(0, colon));
    if (name == "content-length") {
      std::size_t parsed = 0;
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (value.empty() || ec != std::errc{} || p != value.data() + value.size() ||
          (hasLength && parsed != length)) {
        return fail(400, "malformed Content-Length");
      }
      hasLength = true;
      length = parsed;
    } else if (name == "transfer-encoding") {
      hasTransferEncoding = true;
      forEachListElement(value, [&](std::string_view coding) {
        chunked = equalsIgnoreCase(coding, "chunked");  // must be the last coding
      });
      if (!chunked) return fail(501, "only the chunked transfer coding is supported");
    } else if (name == "connection") {
      forEachListElement(value, [&](std::string_view option) {
        if (equalsIgnoreCase(option, "close")) close = true;
        if (equalsIgnoreCase(option, "keep-alive")) keepAlive = true;
      });
    } else if (name == "expect") {
      expect_continue_ = equalsIgnoreCase(value, "100-continue");
    } else if (name == "cookie") {
      parseCookies(value, req.cookies);
    }
    auto [it, inserted] = req.headers.try_emplace(std::move(name), value);
    if (!inserted) {
      it->second += it->first == "cookie" ? "; " : ", ";
      it->second += value;
    }
  }

  meta.keep_alive = meta.minor_version == 1 ? !close : (keepAlive && !close);
  if (hasTransferEncoding) {
    // RFC 9112 6.1: both framings at once is how requests are smuggled; refuse it.
    if (hasLength || meta.minor_version == 0) {
      return fail(400, "Transfer-Encoding cannot be combined with Content-Length or HTTP/1.0");
    }
    stage_ = Stage::chunk_size;
  } else {
    if (length > limits_.max_body_bytes) {
      return fail(413, "the request body is larger than server.max_request_bytes");
    }
    stage_ = Stage::body;
    remaining_ = length;
    if (length > 0) req.body.reserve(length);
  }
  if (meta.minor_version == 0 || (!hasTransferEncoding && length == 0)) expect_continue_ = false;
  continue_sent_ = false;
  return Result::request;
}

void parseQuery(std::string_view query, std::map<std::string, std::string>& out) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    if (!pair.empty()) {
      const auto eq = pair.find('=');
      auto name = decodeComponent(pair.substr(0, eq));
      if (!name.empty()) {
        out.try_emplace(std::move(name), eq == std::string_view::npos
                                             ? std::string()
                                             : decodeComponent(pair.substr(eq + 1)));
      }
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
}

void parseCookies(std::string_view header, std::map<std::string, std::string>& out) {
  while (!header.empty()) {
    const auto semi = header.find(';');
    const auto pair = domain::trimBlanks(header.substr(0, semi));
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      auto value = domain::trimBlanks(pair.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      out.try_emplace(std::string(domain::trimBlanks(pair.substr(0, eq))), value);
    }
    if (semi == std::string_view::npos) break;
    header.remove_prefix(semi + 1);
  }
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  }
}

void appendResponse(std::string& out, const HttpResponse& response,
                    const ResponseFraming& framing) {
  const int status = response.status;
  const bool bodyless = status < 200 || status == 204 || status == 304;
  out.reserve(out.size() + 256 + (framing.head_only ? 0 : response.body.size()));
  out += "HTTP/1.1 ";
  appendNumber(out, static_cast<unsigned long long>(status));
  out += ' ';
  out += reasonPhrase(status);
  out += "\r\nDate: ";
  out += httpDate();
  const bool chunked = !bodyless && response.stream;
  if (!bodyless) {
    out += "\r\nContent-Type: ";
    out += response.content_type;
    if (chunked) {
      out += "\r\nTransfer-Encoding: chunked";
    } else {
      out += "\r\nContent-Length: ";
      appendNumber(out, response.body.size());
    }
  }
  if (!framing.request_id.empty()) {
    out += "\r\nX-Request-ID: ";
    out += framing.request_id;
  }
  for (const auto& [name, value] : response.headers) {
    if (!safeHeaderText(name) || !safeHeaderText(value)) continue;
    out += "\r\n";
    out += name;
    out += ": ";
    out += value;
  }
  for (const auto& c : response.cookies) {
    if (!safeHeaderText(c.name) || !safeHeaderText(c.value) || !safeHeaderText(c.path)) continue;
    out += "\r\nSet-Cookie: ";
    out += c.name;
    out += '=';
    out += c.value;
    out += "; Path=";
    out += c.path;
    if (c.max_age) {
      out += "; Max-Age=";
      out += std::to_string(*c.max_age);
    }
    if (c.secure) out += "; Secure";
    if (c.http_only) out += "; HttpOnly";
    out += "; SameSite=Lax";
  }
  if (framing.close) {
    out += "\r\nConnection: close";
  } else if (framing.keep_alive_1_0) {
    out += "\r\nConnection: keep-alive";
  }
  out += "\r\n\r\n";
  if (bodyless || framing.head_only) return;
  if (chunked) {
    appendChunk(out, response.body);
  } else {
    out += response.body;
  }
}

void appendChunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  static constexpr char kHex[] = "0123456789abcdef";
  char size[16];
  int n = 0;
  for (std::size_t v = data.size(); v != 0; v >>= 4)
    size[n++] = kHex[v & 0xf];
  while (n > 0)
    out += size[--n];
  out += "\r\n";
  out += data;
  out += "\r\n";
}

void appendLastChunk(std::string& out) {
  out += "0\r\n\r\n";
}

}  // namespace certsteward::adapters::http

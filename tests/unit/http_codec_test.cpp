// The HTTP/1.1 codec byte for byte: request framing (RFC 9112), its limits and refusals, and
// the responses it writes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <certsteward/adapters/http/http_codec.hpp>

using namespace certsteward::adapters::http;

namespace {

struct Parsed {
  std::vector<HttpRequest> requests;
  std::vector<RequestMeta> metas;
  int error = 0;
  std::string message;
  bool continue_asked = false;
};

// Feeds `wire` in pieces of `step` bytes, collecting every request (and the first error).
Parsed parseAll(const std::string& wire, std::size_t step = 1 << 20, ParserLimits limits = {}) {
  RequestParser parser(limits);
  Parsed out;
  for (std::size_t at = 0; at < wire.size() && out.error == 0; at += step) {
    parser.feed(wire.data() + at, std::min(step, wire.size() - at));
    for (;;) {
      HttpRequest r;
      RequestMeta m;
      const auto result = parser.next(r, m);
      if (result == RequestParser::Result::need_more) {
        if (parser.continue_expected()) {
          out.continue_asked = true;
          parser.mark_continue_sent();
        }
        break;
      }
      if (result == RequestParser::Result::error) {
        out.error = parser.error_status();
        out.message = parser.error_message();
        break;
      }
      out.requests.push_back(std::move(r));
      out.metas.push_back(m);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("http codec: a request is read whole however the bytes arrive") {
  const std::string wire =
      "POST /api/v1/projects?page=2&name=a%20b+c&flag&page=9 HTTP/1.1\r\n"
      "Host: localhost\r\n"
      "Content-Type: application/json\r\n"
      "X-Multi: one\r\n"
      "x-multi: two\r\n"
      "Cookie: access_token=abc; csrf_token=\"def\"\r\n"
      "Content-Length: 13\r\n"
      "\r\n"
      "{\"name\":\"x\"}\n";
  for (const std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{7}, wire.size()}) {
    CAPTURE(step);
    const auto p = parseAll(wire, step);
    REQUIRE(p.error == 0);
    REQUIRE(p.requests.size() == 1);
    const auto& r = p.requests[0];
    CHECK(r.method == "POST");
    CHECK(r.path == "/api/v1/projects");
    CHECK(r.query.at("page") == "2");  // the first of repeated names
    CHECK(r.query.at("name") == "a b c");
    CHECK(r.query.at("flag").empty());
    CHECK(r.header("content-type") == "application/json");
    CHECK(r.header("x-multi") == "one, two");
    CHECK(r.cookies.at("access_token") == "abc");
    CHECK(r.cookies.at("csrf_token") == "def");
    CHECK(r.body == "{\"name\":\"x\"}\n");
    CHECK(p.metas[0].keep_alive);
  }
}

TEST_CASE("http codec: pipelined requests, chunked bodies and connection rules") {
  SUBCASE("three pipelined requests in one read") {
    const auto p = parseAll(
        "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
        "GET /c HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE(p.requests.size() == 3);
    CHECK(p.requests[0].path == "/a");
    CHECK(p.requests[1].body == "hi");
    CHECK(p.requests[2].path == "/c");
  }
  SUBCASE("a chunked body with extensions and trailers, fed a byte at a time") {
    const auto p = parseAll(
        "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: t\r\n\r\n"
        "GET /next HTTP/1.1\r\nHost: x\r\n\r\n",
        1);
    REQUIRE(p.error == 0);
    REQUIRE(p.requests.size() == 2);
    CHECK(p.requests[0].body == "Wikipedia in\r\n\r\nchunks.");
    CHECK(p.requests[1].path == "/next");
  }
  SUBCASE("keep-alive by version and Connection header") {
    struct Row {
      const char* head;
      bool keepAlive;
      int minor;
    };
    const Row rows[] = {
        {"GET / HTTP/1.1\r\n\r\n", true, 1},
        {"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false, 1},
        {"GET / HTTP/1.1\r\nConnection: Upgrade, CLOSE\r\n\r\n", false, 1},
        {"GET / HTTP/1.0\r\n\r\n", false, 0},
        {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true, 0},
    };
    for (const auto& row : rows) {
      CAPTURE(row.head);
      const auto p = parseAll(row.head);
      REQUIRE(p.requests.size() == 1);
      CHECK(p.metas[0].keep_alive == row.keepAlive);
      CHECK(p.metas[0].minor_version == row.minor);
    }
  }
  SUBCASE("absolute-form targets, fragments, empty lines before the request, bare LF") {
    const auto p = parseAll(
        "\r\n\r\nGET http://example.test/api/v1/x?y=1#frag HTTP/1.1\r\n\r\n"
        "GET HTTP://example.test HTTP/1.1\nHost: x\n\n");
    REQUIRE(p.requests.size() == 2);
    CHECK(p.requests[0].path == "/api/v1/x");
    CHECK(p.requests[0].query.at("y") == "1");
    CHECK(p.requests[1].path == "/");
    CHECK(p.requests[1].header("host") == "x");
  }
  SUBCASE("Expect: 100-continue asks once, only while the body is missing") {
    const auto p =
        parseAll("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", 1 << 20);
    CHECK(p.continue_asked);
    CHECK(p.requests.empty());
    const auto whole =
        parseAll("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc");
    CHECK(whole.requests.size() == 1);
    CHECK_FALSE(whole.continue_asked);
    const auto noBody = parseAll("GET /x HTTP/1.1\r\nExpect: 100-continue\r\n\r\n");
    CHECK_FALSE(noBody.continue_asked);
  }
}

TEST_CASE("http codec: malformed, oversized and smuggling requests are refused with a status") {
  ParserLimits small;
  small.max_body_bytes = 10;
  small.max_head_bytes = 200;
  small.max_headers = 5;
  struct Row {
    std::string name;
    std::string wire;
    int status;
  };
  const std::vector<Row> rows{
      {"no spaces", "GARBAGE\r\n\r\n", 400},
      {"extra space", "GET  / HTTP/1.1\r\n\r\n", 400},
      {"bad method", "G(T / HTTP/1.1\r\n\r\n", 400},
      {"lower-case version", "GET / http/1.1\r\n\r\n", 400},
      {"HTTP/2 in text", "GET / HTTP/2.0\r\n\r\n", 505},
      {"relative target", "GET api HTTP/1.1\r\n\r\n", 400},
      {"control byte in target", std::string("GET /a\x01 HTTP/1.1\r\n\r\n"), 400},
      {"non-ASCII target", "GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n", 400},
      {"header without colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n", 400},
      {"space before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400},
      {"folded header", "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400},
      {"NUL in a value", std::string("GET / HTTP/1.1\r\nA: b\0c\r\n\r\n", 26), 400},
      {"bad Content-Length", "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400},
      {"negative Content-Length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"two Content-Lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
       400},
      {"CL and TE together",
       "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"TE on HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"gzip coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"chunked not last", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 501},
      {"bad chunk size", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"chunk without CRLF", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc", 400},
      {"body over the limit", "POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", 413},
      {"chunks over the limit",
       "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n", 413},
      {"huge chunk size",
       "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", 400},
      {"too many headers", "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: 6\r\n\r\n",
       431},
      {"head too large", "GET / HTTP/1.1\r\nA: " + std::string(300, 'a') + "\r\n\r\n", 431},
      {"head never ends", "GET / HTTP/1.1\r\nA: " + std::string(300, 'a'), 431},
      {"request line too long", "GET /" + std::string(9000, 'a'), 414},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    for (const std::size_t step : {std::size_t{1}, std::size_t{1} << 20}) {
      const auto p = parseAll(row.wire, step, row.status == 414 ? ParserLimits{} : small);
      CHECK(p.error == row.status);
      CHECK_FALSE(p.message.empty());
      CHECK(p.requests.empty());
    }
  }
  // The 414 row needs the default head limit (64 KiB) to see the long line first.
  const auto longLine = parseAll("GET /" + std::string(70 * 1024, 'a'));
  CHECK(longLine.error == 414);
}

TEST_CASE("http codec: after an error the parser stays failed and drops input") {
  RequestParser parser;
  const std::string bad = "BAD\r\n\r\n";
  parser.feed(bad.data(), bad.size());
  HttpRequest r;
  RequestMeta m;
  CHECK(parser.next(r, m) == RequestParser::Result::error);
  const std::string good = "GET / HTTP/1.1\r\n\r\n";
  parser.feed(good.data(), good.size());
  CHECK(parser.next(r, m) == RequestParser::Result::error);
  CHECK(parser.error_status() == 400);
}

TEST_CASE("http codec: partial() tells a stalled request from an idle connection") {
  RequestParser parser;
  HttpRequest r;
  RequestMeta m;
  CHECK_FALSE(parser.partial());
  const std::string head = "POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab";
  parser.feed(head.data(), head.size());
  CHECK(parser.next(r, m) == RequestParser::Result::need_more);
  CHECK(parser.partial());
  parser.feed("cd", 2);
  CHECK(parser.next(r, m) == RequestParser::Result::request);
  CHECK(r.body == "abcd");
  CHECK_FALSE(parser.partial());
}

TEST_CASE("http codec: responses are framed for the method, status and connection") {
  HttpResponse json;
  json.status = 201;
  json.body = R"({"ok":true})";
  json.headers.emplace_back("Location", "/api/v1/x");
  json.headers.emplace_back("X-Evil", "a\r\nSet-Cookie: stolen=1");  // never written
  SetCookie cookie;
  cookie.name = "access_token";
  cookie.value = "tok";
  cookie.max_age = 900;
  cookie.secure = true;
  json.cookies.push_back(cookie);

  std::string out;
  appendResponse(out, json, {"req-1", false, false, false});
  CHECK(out.starts_with("HTTP/1.1 201 Created\r\nDate: "));
  CHECK(out.find(" GMT\r\n") != std::string::npos);
  CHECK(out.find("\r\nContent-Type: application/json\r\nContent-Length: 11\r\n") !=
        std::string::npos);
  CHECK(out.find("\r\nX-Request-ID: req-1\r\n") != std::string::npos);
  CHECK(out.find("\r\nLocation: /api/v1/x\r\n") != std::string::npos);
  CHECK(out.find("X-Evil") == std::string::npos);
  CHECK(out.find("stolen") == std::string::npos);
  CHECK(out.find("\r\nSet-Cookie: access_token=tok; Path=/; Max-Age=900; Secure; HttpOnly; "
                 "SameSite=Lax\r\n") != std::string::npos);
  CHECK(out.find("Connection") == std::string::npos);
  CHECK(out.ends_with("\r\n\r\n{\"ok\":true}"));

  std::string head;
  appendResponse(head, json, {"req-2", true, true, false});
  CHECK(head.find("Content-Length: 11\r\n") != std::string::npos);  // what GET would send
  CHECK(head.find("\r\nConnection: close\r\n") != std::string::npos);
  CHECK(head.ends_with("\r\n\r\n"));

  HttpResponse empty;
  empty.status = 204;
  std::string noContent;
  appendResponse(noContent, empty, {"req-3", false, false, true});
  CHECK(noContent.starts_with("HTTP/1.1 204 No Content\r\n"));
  CHECK(noContent.find("Content-Length") == std::string::npos);
  CHECK(noContent.find("Content-Type") == std::string::npos);
  CHECK(noContent.find("\r\nConnection: keep-alive\r\n") != std::string::npos);
  CHECK(noContent.ends_with("\r\n\r\n"));
}

TEST_CASE("http codec: a streamed answer is framed as chunks, its first piece the body") {
  HttpResponse streamed;
  streamed.content_type = "text/csv";
  streamed.body = "id,name\r\n";
  streamed.stream = [](std::string&) { return BodyStep::done; };

  std::string out;
  appendResponse(out, streamed, {"req-1", false, false, false});
  CHECK(out.find("\r\nTransfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(out.find("Content-Length") == std::string::npos);
  CHECK(out.ends_with("\r\n\r\n9\r\nid,name\r\n\r\n"));

  std::string head;  // HEAD: the headers GET would send, no chunk at all
  appendResponse(head, streamed, {"req-2", true, false, false});
  CHECK(head.find("\r\nTransfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(head.ends_with("\r\n\r\n"));

  // Sizes in hexadecimal; an empty piece writes nothing (an empty chunk would end the body).
  std::string chunks;
  appendChunk(chunks, std::string(0x1a2b, 'x'));
  CHECK(chunks.starts_with("1a2b\r\nxxx"));
  CHECK(chunks.ends_with("xxx\r\n"));
  CHECK(chunks.size() == 6 + 0x1a2b + 2);
  std::string none;
  appendChunk(none, "");
  CHECK(none.empty());
  appendLastChunk(none);
  CHECK(none == "0\r\n\r\n");
}

// Request parsing and entity rendering.
#include <certsteward/adapters/rest/json_io.hpp>

#include <certsteward/domain/encoding.hpp>

#include <certsteward/domain/audit.hpp>

#include <charconv>

namespace certsteward::adapters::rest {

json::object parseBody(const HttpRequest& request) {
  if (request.body.empty()) return {};
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = 32;
  json::value v = json::parse(request.body, ec, {}, options);
  if (ec) throw BadRequest("malformed JSON body");
  if (!v.is_object()) throw BadRequest("the body must be a JSON object");
  return std::move(v.as_object());
}

std::optional<std::string> optionalString(const json::object& o, const char* key,
                                          std::size_t maxLength) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string()) throw BadRequest(std::string(key) + " must be a string");
  if (v->get_string().size() > maxLength) {
    throw BadRequest(std::string(key) + " must be at most " + std::to_string(maxLength) +
                     " characters");
  }
  return std::string(v->get_string());
}

std::string requiredString(const json::object& o, const char* key, std::size_t maxLength) {
  auto v = optionalString(o, key, maxLength);
  if (!v) throw BadRequest(std::string(key) + " is required");
  return *v;
}

std::optional<bool> optionalBool(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_bool()) throw BadRequest(std::string(key) + " must be true or false");
  return v->get_bool();
}

std::optional<std::string> queryParam(const HttpRequest& request, const std::string& name) {
  const auto it = request.query.find(name);
  if (it == request.query.end()) return std::nullopt;
  return it->second;
}

std::optional<std::int64_t> queryInt(const HttpRequest& request, const std::string& name) {
  auto text = queryParam(request, name);
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{} || end != text->data() + text->size()) {
    throw BadRequest(name + " must be an integer");
  }
  return v;
}

domain::PageRequest pageFrom(const HttpRequest& request) {
  auto page = domain::makePageRequest(queryInt(request, "page"), queryInt(request, "page_size"));
  if (!page) throw BadRequest(page.error().message);
  return *page;
}

HttpResponse jsonResponse(int status, const json::value& body) {
  HttpResponse r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

json::value timestamp(domain::Timestamp t) {
  return json::value(domain::formatTimestamp(t));
}
json::value timestamp(const std::optional<domain::Timestamp>& t) {
  return t ? timestamp(*t) : json::value(nullptr);
}

std::string makeCursor(std::string_view kind, std::int64_t position) {
  return domain::toHex("c1:" + std::string(kind) + ":" + std::to_string(position));
}

std::optional<CursorRequest> cursorFrom(const HttpRequest& request, std::string_view kind) {
  const auto limit = queryInt(request, "limit");
  const auto cursor = queryParam(request, "cursor");
  if (!limit && !cursor) return std::nullopt;
  if (queryParam(request, "page") || queryParam(request, "page_size")) {
    throw BadRequest("use either page/page_size or limit/cursor, not both");
  }
  CursorRequest out;
  if (limit) {
    if (*limit < 1) throw BadRequest("limit must be 1 or more");
    out.limit = std::min(*limit, domain::kMaxCursorLimit);
  }
  if (cursor) {
    const auto bad = [] { return BadRequest("cursor is not valid here"); };
    if (cursor->size() % 2 != 0 || cursor->size() > 128) throw bad();
    std::string plain;
    for (std::size_t i = 0; i < cursor->size(); i += 2) {
      const auto hex = [&](char ch) -> int {
        if (ch >= '0' && ch <= '9') return ch - '0';
        if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
        throw bad();
      };
      plain.push_back(static_cast<char>(hex((*cursor)[i]) << 4 | hex((*cursor)[i + 1])));
    }
    const std::string prefix = "c1:" + std::string(kind) + ":";
    if (!plain.starts_with(prefix)) throw bad();
    const std::string number = plain.substr(prefix.size());
    std::int64_t position = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), position);
    if (ec != std::errc{} || end != number.data() + number.size() || position < 0) throw bad();
    out.position = position;
  }
  return out;
}

}  // namespace certsteward::adapters::rest

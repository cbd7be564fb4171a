// JSON in and out of the API handlers (Boost.JSON; included only by the handler .cpp files):
// parsing the body and the query, pages and cursors, responses. How each resource is shown
// lives beside its handlers (api_<resource>.cpp), or in <resource>_json.hpp when several
// resources show it.
// Bad input throws BadRequest, which the API turns into 400 {"error": ...}.
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include <certsteward/adapters/rest/http_messages.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::rest {

namespace json = boost::json;

class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The body as a JSON object; an empty body is an empty object. BadRequest for anything else.
json::object parseBody(const HttpRequest& request);

std::string requiredString(const json::object& o, const char* key, std::size_t maxLength = 1000);
std::optional<std::string> optionalString(const json::object& o, const char* key,
                                          std::size_t maxLength = 1000);
std::optional<bool> optionalBool(const json::object& o, const char* key);

// An enum field: `parse` returns nullopt for unknown names -> BadRequest naming the field.
template <class E, class Parse>
std::optional<E> optionalEnum(const json::object& o, const char* key, Parse parse) {
  auto text = optionalString(o, key, 100);
  if (!text) return std::nullopt;
  auto value = parse(*text);
  if (!value)
    throw BadRequest(std::string("unknown value for ") + key + ": '" + text->substr(0, 40) + "'");
  return value;
}

// page and page_size from the query (defaults 1 and 20, page_size clamped to 100).
domain::PageRequest pageFrom(const HttpRequest& request);

// Cursor pagination (`limit`, `cursor`) of the append-only logs. Present when the request names
// either; BadRequest when it also names page or page_size, for a limit < 1, or for a cursor that
// is not one this server made for `kind`. `position` is where to go on from (0: the start).
struct CursorRequest {
  std::int64_t limit = domain::kDefaultCursorLimit;  // clamped silently to kMaxCursorLimit
  std::int64_t position = 0;
};
std::optional<CursorRequest> cursorFrom(const HttpRequest& request, std::string_view kind);
// The opaque cursor of `position` for `kind`.
std::string makeCursor(std::string_view kind, std::int64_t position);
std::optional<std::string> queryParam(const HttpRequest& request, const std::string& name);
std::optional<std::int64_t> queryInt(const HttpRequest& request, const std::string& name);

HttpResponse jsonResponse(int status, const json::value& body);
// {"<key>": [...], "total", "page", "page_size"}
template <class T, class ToJson>
HttpResponse pageResponse(const char* key, const domain::Page<T>& page, ToJson toJson) {
  json::array items;
  for (const auto& item : page.items)
    items.push_back(toJson(item));
  json::object body;
  body[key] = std::move(items);
  body["total"] = page.total;
  body["page"] = page.page;
  body["page_size"] = page.page_size;
  return jsonResponse(200, body);
}

json::value timestamp(domain::Timestamp t);
json::value timestamp(const std::optional<domain::Timestamp>& t);

}  // namespace certsteward::adapters::rest

// Request parsing and entity rendering.
#include "adapters/rest/json_io.hpp"

#include "domain/encoding.hpp"

#include "domain/audit.hpp"

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

json::object toJson(const domain::User& u) {
  return {{"id", u.id},
          {"username", u.username},
          {"org_role", std::string(nameOf(u.org_role))},
          {"auth_source", std::string(nameOf(u.auth_source))},
          {"disabled", u.disabled},
          {"totp_enabled", u.totp_enabled},
          {"created_at", timestamp(u.created_at)},
          {"updated_at", timestamp(u.updated_at)}};
}

json::object toJson(const domain::Project& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"description", p.description},
          {"created_at", timestamp(p.created_at)},
          {"updated_at", timestamp(p.updated_at)}};
}

json::object toJson(const domain::Membership& m) {
  return {{"project_id", m.project_id},
          {"user_id", m.user_id},
          {"role", std::string(nameOf(m.role))},
          {"created_at", timestamp(m.created_at)}};
}

json::object toJson(const domain::AuditEntry& e) {
  return {{"id", e.id},
          {"timestamp", timestamp(e.timestamp)},
          {"action", e.action},
          {"resourceType", e.resource_type},
          {"resource_id", e.resource_id},
          {"project_id", e.project_id ? json::value(*e.project_id) : json::value(nullptr)},
          {"actor_user_id", e.actor_user_id},
          {"actor_username", e.actor_username},
          {"ip", e.ip},
          {"request_id", e.request_id},
          {"details", e.details},
          {"checksum", e.checksum},
          {"sequence", e.sequence},
          {"mac", e.mac}};
}

}  // namespace certsteward::adapters::rest

namespace certsteward::adapters::rest {

void writeJson(JsonWriter& w, const domain::Certificate& c, domain::Timestamp now) {
  w.beginObject();
  w.key("id").string(c.id);
  w.key("project_id").string(c.project_id);
  w.key("common_name").string(c.common_name);
  w.key("sans").beginArray();
  for (const auto& san : c.sans)
    w.string(san);
  w.endArray();
  w.key("key_type").string(nameOf(c.key_type));
  w.key("status").string(nameOf(c.status));
  w.key("auto_renew").boolean(c.auto_renew);
  w.key("issuer_type").string(c.issuer_type);
  w.key("acme_account_id").optionalString(c.acme_account_id);
  w.key("issued_at").timestamp(c.issued_at);
  w.key("expires_at").timestamp(c.expires_at);
  w.key("next_renewal_at").timestamp(c.next_renewal_at);
  w.key("renewal_threshold_days").integer(c.renewal_threshold_days);
  w.key("renewal_attempts").integer(c.renewal_attempts);
  w.key("last_error").string(c.last_error);
  w.key("failed_renewal").boolean(domain::isFailedRenewal(c, now));
  w.key("distribution_pending").boolean(c.distribution_pending);
  w.key("serial_number").string(c.serial_number);
  w.key("created_at").timestamp(c.created_at);
  w.key("updated_at").timestamp(c.updated_at);
  w.endObject();
}

HttpResponse certificateResponse(int status, const domain::Certificate& cert, domain::Timestamp now,
                                 const domain::Job* job) {
  HttpResponse r;
  r.status = status;
  JsonWriter w(r.body);
  w.beginObject().key("certificate");
  writeJson(w, cert, now);
  if (job != nullptr) w.key("job").raw(json::serialize(toJson(*job)));
  w.endObject();
  return r;
}

HttpResponse certificatePageResponse(const domain::Page<domain::Certificate>& page,
                                     domain::Timestamp now) {
  HttpResponse r;
  r.body.reserve(256 + page.items.size() * 640);
  JsonWriter w(r.body);
  w.beginObject().key("certificates").beginArray();
  for (const auto& cert : page.items)
    writeJson(w, cert, now);
  w.endArray();
  w.key("total").integer(page.total);
  w.key("page").integer(page.page);
  w.key("page_size").integer(page.page_size);
  w.endObject();
  return r;
}

json::object toJson(const domain::Job& j) {
  return {
      {"id", j.id},
      {"project_id", j.project_id},
      {"type", std::string(nameOf(j.type))},
      {"status", std::string(nameOf(j.status))},
      {"lane", std::string(nameOf(j.lane()))},
      {"error_msg", j.error_msg},
      {"attempts", j.attempts},
      {"max_attempts", j.max_attempts},
      {"certificate_id", j.certificate_id ? json::value(*j.certificate_id) : json::value(nullptr)},
      {"parent_id", j.parent_id ? json::value(*j.parent_id) : json::value(nullptr)},
      {"created_at", timestamp(j.created_at)},
      {"updated_at", timestamp(j.updated_at)},
      {"next_run_at", timestamp(j.next_run_at)},
      {"locked_by", j.locked_by.empty() ? json::value(nullptr) : json::value(j.locked_by)},
      {"lock_expires_at", timestamp(j.lock_expires_at)},
      {"cancel_requested", j.cancel_requested},
      {"finished_at", timestamp(j.finished_at)}};
}

json::object toJson(const domain::JobLogEntry& e) {
  return {{"ts", timestamp(e.ts)}, {"level", std::string(nameOf(e.level))}, {"message", e.message}};
}

json::object toJson(const domain::Event& e) {
  return {{"id", e.id},
          {"kind", std::string(nameOf(e.kind))},
          {"resource_id", e.resource_id},
          {"message", e.message},
          {"at", timestamp(e.at)}};
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

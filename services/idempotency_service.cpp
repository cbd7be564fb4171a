#include <certsteward/services/idempotency_service.hpp>

#include <algorithm>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::services {

domain::Result<IdempotencyService::Lookup> IdempotencyService::lookup(
    const IdempotentRequest& request) {
  const auto& key = request.key;
  if (key.empty() || key.size() > 255 ||
      !std::all_of(key.begin(), key.end(), [](char c) { return c > 0x20 && c < 0x7f; })) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "Idempotency-Key must be 1 to 255 printable characters", domain::kMalformed);
  }
  std::string scope = "anonymous:" + request.client_ip;
  if (request.who != nullptr) {
    scope = request.who->user.id + "/" + std::string(nameOf(request.who->user.org_role));
    if (request.project_id) {
      auto role = access_.projectRole(*request.who, *request.project_id);
      if (!role) return role.error();
      if (!*role) return Lookup{};  // invisible: the request answers 404 itself
      scope += "/" + std::string(nameOf(**role));
    }
  }
  Lookup out;
  out.scoped_key = scope + ":" + request.method + " " + request.path + ":" + key;
  out.fingerprint = domain::toHex(p_.fingerprints.sign(request.body));
  auto existing = p_.records.find(out.scoped_key, p_.clock.now());
  if (!existing) return existing.error();
  if (*existing) {
    if ((*existing)->request_fingerprint != out.fingerprint) {
      return makeError(domain::ErrorCode::conflict,
                       "this Idempotency-Key was used with a different request body");
    }
    out.replay = KeptAnswer{(*existing)->status_code, (*existing)->content_type, (*existing)->body};
    return out;
  }
  out.keep = true;
  return out;
}

void IdempotencyService::keep(const Lookup& lookup, KeptAnswer answer) {
  if (!lookup.keep) return;
  const auto now = p_.clock.now();
  (void)p_.records.save(
      domain::IdempotencyRecord{lookup.scoped_key, lookup.fingerprint, answer.status,
                                std::move(answer.content_type), std::move(answer.body), now,
                                now + domain::kIdempotencyWindow},
      now);
}

}  // namespace certsteward::services

// The field lists of every stored entity, each written once (X-macros), and Boost.JSON glue.
#include <certsteward/adapters/store/codec/json_codec.hpp>

#include <boost/json.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace certsteward::adapters::codec {
namespace {

namespace json = boost::json;
using namespace certsteward::domain;

// ---- writers ----
json::value w(const std::string& v) {
  return json::value(v);
}
json::value w(bool v) {
  return json::value(v);
}
json::value w(int v) {
  return json::value(static_cast<std::int64_t>(v));
}
json::value w(std::int64_t v) {
  return json::value(v);
}
json::value w(Timestamp t) {
  return json::value(t.time_since_epoch().count());
}
json::value w(Duration d) {
  return json::value(d.count());
}
json::value w(double v) {
  return json::value(v);
}
template <class E>
requires std::is_enum_v<E> json::value w(E e) {
  return json::value(nameOf(e));
}
json::value w(const std::map<std::string, std::string>& m) {
  json::object o;
  for (const auto& [k, v] : m)
    o[k] = v;
  return o;
}
template <class T>
json::value w(const std::optional<T>& v) {
  return v ? w(*v) : json::value(nullptr);
}
json::value w(const TargetResult& v);
json::value w(const DistributionTarget& v);
json::value w(const EndedSession& v);
json::value w(const LdapGroupMapping& v);
json::value w(const OidcGroupMapping& v);
json::value w(const QuotaLimit& v);
json::value w(const CaRateLimits& v);
json::value w(const CaProfile& v);
json::value w(const CaProvider& v);
json::value w(const IssuancePolicy& v);
json::value w(const IssuanceDefaults& v);
json::value w(const ProjectIssuance& v);
template <class T>
json::value w(const std::vector<T>& v) {
  json::array a;
  for (const auto& x : v)
    a.push_back(w(x));
  return a;
}

// ---- readers: throw std::invalid_argument on a type mismatch ----
[[noreturn]] void corrupt() {
  throw std::invalid_argument("corrupt");
}
void r(const json::value& j, std::string& out) {
  if (!j.is_string()) corrupt();
  out = std::string(j.get_string());
}
void r(const json::value& j, bool& out) {
  if (!j.is_bool()) corrupt();
  out = j.get_bool();
}
void r(const json::value& j, std::int64_t& out) {
  if (j.is_int64()) {
    out = j.get_int64();
  } else if (j.is_uint64() && j.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    out = static_cast<std::int64_t>(j.get_uint64());
  } else if (j.is_double() && std::trunc(j.get_double()) == j.get_double() &&
             std::fabs(j.get_double()) < 9.0e15) {
    // Some MongoDB-compatible servers and tools hand integers back as doubles; an integral
    // double within the exact range is the same number.
    out = static_cast<std::int64_t>(j.get_double());
  } else {
    corrupt();
  }
}
void r(const json::value& j, int& out) {
  std::int64_t v = 0;
  r(j, v);
  out = static_cast<int>(v);
}
void r(const json::value& j, Timestamp& out) {
  std::int64_t v = 0;
  r(j, v);
  out = Timestamp{Duration{v}};
}
void r(const json::value& j, double& out) {
  if (!j.is_number()) corrupt();
  out = j.to_number<double>();
}
void r(const json::value& j, Duration& out) {
  std::int64_t v = 0;
  r(j, v);
  out = Duration{v};
}
template <class E>
bool assign(std::optional<E> parsed, E& out) {
  if (!parsed) return false;
  out = *parsed;
  return true;
}
bool parseEnum(std::string_view s, JobStatus& e) {
  return assign(parseJobStatus(s), e);
}
bool parseEnum(std::string_view s, JobType& e) {
  return assign(parseJobType(s), e);
}
bool parseEnum(std::string_view s, CertificateStatus& e) {
  return assign(parseCertificateStatus(s), e);
}
bool parseEnum(std::string_view s, KeyType& e) {
  return assign(parseKeyType(s), e);
}
bool parseEnum(std::string_view s, ChallengeType& e) {
  return assign(parseChallengeType(s), e);
}
bool parseEnum(std::string_view s, OrgRole& e) {
  return assign(parseOrgRole(s), e);
}
bool parseEnum(std::string_view s, AuthSource& e) {
  return assign(parseAuthSource(s), e);
}
bool parseEnum(std::string_view s, EventKind& e) {
  return assign(parseEventKind(s), e);
}
bool parseEnum(std::string_view s, DeliveryStatus& e) {
  return assign(parseDeliveryStatus(s), e);
}
bool parseEnum(std::string_view s, LdapSecurity& e) {
  return assign(parseLdapSecurity(s), e);
}
template <class E>
requires std::is_enum_v<E>
void r(const json::value& j, E& out) {
  if (!j.is_string() || !parseEnum(j.get_string(), out)) corrupt();
}
void r(const json::value& j, std::map<std::string, std::string>& out) {
  if (!j.is_object()) corrupt();
  out.clear();
  for (const auto& [k, v] : j.get_object()) {
    if (!v.is_string()) corrupt();
    out[std::string(k)] = std::string(v.get_string());
  }
}
template <class T>
void r(const json::value& j, std::optional<T>& out) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  T v{};
  r(j, v);
  out = std::move(v);
}
void r(const json::value& j, TargetResult& out);
void r(const json::value& j, DistributionTarget& out);
void r(const json::value& j, EndedSession& out);
void r(const json::value& j, LdapGroupMapping& out);
void r(const json::value& j, OidcGroupMapping& out);
void r(const json::value& j, QuotaLimit& out);
void r(const json::value& j, CaRateLimits& out);
void r(const json::value& j, CaProfile& out);
void r(const json::value& j, CaProvider& out);
void r(const json::value& j, IssuancePolicy& out);
void r(const json::value& j, IssuanceDefaults& out);
void r(const json::value& j, ProjectIssuance& out);
template <class T>
void r(const json::value& j, std::vector<T>& out) {
  if (!j.is_array()) corrupt();
  out.clear();
  for (const auto& x : j.get_array()) {
    T v{};
    r(x, v);
    out.push_back(std::move(v));
  }
}

// Reads field `key` when present; missing keys keep the default.
template <class T>
void field(const json::object& o, const char* key, T& out) {
  if (const auto* v = o.if_contains(key)) r(*v, out);
}

#define CS_WRITE(f) o[#f] = w(x.f);
#define CS_READ(f) field(o, #f, x.f);

#define CS_TARGET_RESULT(X) \
  X(target_name)            \
  X(status) X(error) X(error_code) X(duration_ms) X(rolled_back) X(rollback_error) X(changed)
#define CS_DISTRIBUTION_TARGET(X) X(name) X(settings) X(credential_id)
#define CS_ENDED_SESSION(X) X(family_id) X(until)
#define CS_CERTIFICATE(X)       \
  X(id)                         \
  X(project_id)                 \
  X(common_name)                \
  X(sans)                       \
  X(key_type)                   \
  X(status)                     \
  X(auto_renew)                 \
  X(issuer_type)                \
  X(acme_account_id)            \
  X(acme_account_ids)           \
  X(profile)                    \
  X(preferred_chain)            \
  X(issued_by_account_id)       \
  X(issued_by_provider_id)      \
  X(failover_account_id)        \
  X(failover_at)                \
  X(ca_failures)                \
  X(challenge)                  \
  X(http01_module_config_id)    \
  X(issued_at)                  \
  X(expires_at)                 \
  X(next_renewal_at)            \
  X(renewal_threshold_days)     \
  X(renew_at_fraction)          \
  X(ari_poll_at)                \
  X(renewal_attempts)           \
  X(last_error)                 \
  X(distribution_pending)       \
  X(distribution_pending_since) \
  X(serial_number)              \
  X(certificate_pem) X(chain_pem) X(private_key_sealed) X(created_at) X(updated_at) X(version)
#define CS_JOB(X)    \
  X(id)              \
  X(project_id)      \
  X(type)            \
  X(status)          \
  X(attempts)        \
  X(max_attempts)    \
  X(error_msg)       \
  X(certificate_id)  \
  X(parent_id)       \
  X(idempotency_key) \
  X(payload)         \
  X(created_at)      \
  X(updated_at)      \
  X(next_run_at) X(locked_by) X(lock_expires_at) X(cancel_requested) X(finished_at) X(dismissed_at)
#define CS_PROJECT(X) X(id) X(name) X(description) X(issuance) X(created_at) X(updated_at)
#define CS_ISSUANCE_POLICY(X) \
  X(allowed_key_types)        \
  X(allowed_suffixes)         \
  X(allow_wildcards) X(allow_ip_addresses) X(max_lifetime_days) X(allowed_ca_provider_ids)
#define CS_ISSUANCE_DEFAULTS(X) X(acme_account_ids) X(profile) X(preferred_chain)
#define CS_PROJECT_ISSUANCE(X) X(defaults) X(policy)
#define CS_USER(X)      \
  X(id)                 \
  X(username)           \
  X(password_hash)      \
  X(org_role)           \
  X(auth_source)        \
  X(external_subject)   \
  X(disabled)           \
  X(totp_enabled)       \
  X(totp_secret_sealed) \
  X(created_at)         \
  X(updated_at)         \
  X(tokens_valid_after) \
  X(ended_sessions) X(time_zone) X(language) X(notification_preferences) X(totp_last_step)
#define CS_ACME_ACCOUNT(X) \
  X(id)                    \
  X(project_id)            \
  X(name)                  \
  X(directory_url)         \
  X(email)                 \
  X(status)                \
  X(is_registered)         \
  X(account_url)           \
  X(key_sealed)            \
  X(eab_kid) X(eab_hmac_sealed) X(last_validated_at) X(created_at) X(updated_at) X(ca_provider_id)
#define CS_QUOTA_LIMIT(X) X(max) X(window)
#define CS_CA_RATE_LIMITS(X) X(certificates) X(orders) X(failed_validations)
#define CS_CA_PROFILE(X) X(name) X(description)
#define CS_CA_PROVIDER(X)                                                                         \
  X(id)                                                                                           \
  X(name)                                                                                         \
  X(kind)                                                                                         \
  X(preset)                                                                                       \
  X(directory_url)                                                                                \
  X(trust_bundle)                                                                                 \
  X(eab_required)                                                                                 \
  X(caa_identities) X(rate_limits) X(profiles) X(enabled) X(directory_read_at) X(directory_error) \
      X(created_at) X(updated_at)
#define CS_CA_PROVIDER_LIST(X) X(providers)
#define CS_DNS_CREDENTIAL(X) \
  X(id)                      \
  X(project_id)              \
  X(name) X(provider) X(settings) X(secret_sealed) X(active) X(created_at) X(updated_at)
#define CS_ZONE(X) X(id) X(project_id) X(domain) X(dns_credential_id) X(created_at) X(updated_at)
#define CS_CREDENTIAL(X) \
  X(id) X(project_id) X(name) X(kind) X(username) X(secret_sealed) X(created_at) X(updated_at)
#define CS_MODULE_CONFIG(X) \
  X(id)                     \
  X(project_id)             \
  X(name) X(module) X(settings) X(targets) X(auto_rollback_on_failure) X(created_at) X(updated_at)
#define CS_DISTRIBUTION(X) \
  X(id)                    \
  X(project_id)            \
  X(certificate_id)        \
  X(module_config_id)      \
  X(last_status)           \
  X(last_action)           \
  X(last_error)            \
  X(last_error_at)         \
  X(last_run_at)           \
  X(last_target_results)   \
  X(deployed_serial)       \
  X(deployed_sealed) X(previous_serial) X(previous_sealed) X(created_at) X(updated_at)
#define CS_CHANNEL(X) \
  X(id)               \
  X(project_id) X(name) X(kind) X(settings) X(secret_sealed) X(enabled) X(created_at) X(updated_at)
#define CS_RULE(X)       \
  X(id)                  \
  X(project_id)          \
  X(name)                \
  X(events)              \
  X(channel_ids)         \
  X(enabled)             \
  X(created_at)          \
  X(updated_at)          \
  X(certificate_pattern) \
  X(only_on_change) X(thresholds_days) X(mode) X(digest_time) X(last_digest_at)
#define CS_DELIVERY(X) \
  X(id)                \
  X(project_id)        \
  X(channel_id)        \
  X(rule_id)           \
  X(event_id)          \
  X(event)             \
  X(resource_id)       \
  X(recovery)          \
  X(variables)         \
  X(items)             \
  X(status)            \
  X(attempts)          \
  X(last_error) X(job_id) X(digest_id) X(created_at) X(updated_at) X(sent_at)
#define CS_NOTIFICATION_STATE(X) \
  X(id)                          \
  X(project_id) X(rule_id) X(subject) X(failing) X(threshold_days) X(expires_at) X(updated_at)
#define CS_AUDIT(X) \
  X(id)             \
  X(timestamp)      \
  X(action)         \
  X(resource_type)  \
  X(resource_id)    \
  X(project_id)     \
  X(actor_user_id) X(actor_username) X(ip) X(request_id) X(details) X(checksum) X(sequence) X(mac)
#define CS_LICENSE(X) \
  X(plan_name)        \
  X(cert_limit)       \
  X(expires_at)       \
  X(license_key)      \
  X(fingerprint)      \
  X(activation_id) X(activated_at) X(last_checked_at) X(api_key_configured) X(license_mode)
#define CS_LDAP_GROUP_MAPPING(X) X(group_dn) X(org_role)
#define CS_LDAP_SETTINGS(X)                                                                     \
  X(enabled)                                                                                    \
  X(host)                                                                                       \
  X(port)                                                                                       \
  X(security)                                                                                   \
  X(ca_bundle)                                                                                  \
  X(bind_dn)                                                                                    \
  X(base_dn)                                                                                    \
  X(user_filter)                                                                                \
  X(username_attribute) X(email_attribute) X(group_base_dn) X(group_filter) X(member_attribute) \
      X(group_mappings) X(default_org_role) X(connect_timeout_seconds)                          \
          X(operation_timeout_seconds) X(bind_password_sealed)
#define CS_OIDC_GROUP_MAPPING(X) X(group) X(org_role)
#define CS_OIDC_SETTINGS(X) \
  X(enabled)                \
  X(display_name)           \
  X(issuer)                 \
  X(client_id)              \
  X(client_secret_sealed)   \
  X(redirect_uri)           \
  X(scopes) X(username_claim) X(groups_claim) X(group_mappings) X(default_org_role) X(ca_bundle)
#define CS_IDEMPOTENCY(X) \
  X(key) X(request_fingerprint) X(status_code) X(content_type) X(body) X(created_at) X(expires_at)

json::value w(const TargetResult& x) {
  json::object o;
  CS_TARGET_RESULT(CS_WRITE)
  return o;
}
void r(const json::value& j, TargetResult& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_TARGET_RESULT(CS_READ)
}
json::value w(const DistributionTarget& x) {
  json::object o;
  CS_DISTRIBUTION_TARGET(CS_WRITE)
  return o;
}
void r(const json::value& j, DistributionTarget& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_DISTRIBUTION_TARGET(CS_READ)
}
json::value w(const LdapGroupMapping& x) {
  json::object o;
  CS_LDAP_GROUP_MAPPING(CS_WRITE)
  return o;
}
void r(const json::value& j, LdapGroupMapping& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_LDAP_GROUP_MAPPING(CS_READ)
}
json::value w(const OidcGroupMapping& x) {
  json::object o;
  CS_OIDC_GROUP_MAPPING(CS_WRITE)
  return o;
}
void r(const json::value& j, OidcGroupMapping& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_OIDC_GROUP_MAPPING(CS_READ)
}
json::value w(const EndedSession& x) {
  json::object o;
  CS_ENDED_SESSION(CS_WRITE)
  return o;
}
void r(const json::value& j, EndedSession& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_ENDED_SESSION(CS_READ)
}

json::value w(const QuotaLimit& x) {
  json::object o;
  CS_QUOTA_LIMIT(CS_WRITE)
  return o;
}
void r(const json::value& j, QuotaLimit& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_QUOTA_LIMIT(CS_READ)
}
json::value w(const CaRateLimits& x) {
  json::object o;
  CS_CA_RATE_LIMITS(CS_WRITE)
  return o;
}
void r(const json::value& j, CaRateLimits& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_CA_RATE_LIMITS(CS_READ)
}
json::value w(const CaProfile& x) {
  json::object o;
  CS_CA_PROFILE(CS_WRITE)
  return o;
}
void r(const json::value& j, CaProfile& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_CA_PROFILE(CS_READ)
}
json::value w(const CaProvider& x) {
  json::object o;
  CS_CA_PROVIDER(CS_WRITE)
  return o;
}
void r(const json::value& j, CaProvider& x) {
  if (!j.is_object()) corrupt();
  const auto& o = j.get_object();
  CS_CA_PROVIDER(CS_READ)
}

#define CS_NESTED(Type, LIST)             \
  json::value w(const Type& x) {          \
    json::object o;                       \
    LIST(CS_WRITE)                        \
    return o;                             \
  }                                       \
  void r(const json::value& j, Type& x) { \
    if (!j.is_object()) corrupt();        \
    const auto& o = j.get_object();       \
    LIST(CS_READ)                         \
  }
CS_NESTED(IssuancePolicy, CS_ISSUANCE_POLICY)
CS_NESTED(IssuanceDefaults, CS_ISSUANCE_DEFAULTS)
CS_NESTED(ProjectIssuance, CS_PROJECT_ISSUANCE)

template <class T>
struct Fields;

#define CS_ENTITY(Type, LIST)                                            \
  template <>                                                            \
  struct Fields<Type> {                                                  \
    static void write(json::object& o, const Type& x) { LIST(CS_WRITE) } \
    static void read(const json::object& o, Type& x) { LIST(CS_READ) }   \
  };

CS_ENTITY(Certificate, CS_CERTIFICATE)
CS_ENTITY(Job, CS_JOB)
CS_ENTITY(Project, CS_PROJECT)
CS_ENTITY(User, CS_USER)
CS_ENTITY(AcmeAccount, CS_ACME_ACCOUNT)
CS_ENTITY(DnsCredential, CS_DNS_CREDENTIAL)
CS_ENTITY(Zone, CS_ZONE)
CS_ENTITY(Credential, CS_CREDENTIAL)
CS_ENTITY(ModuleConfig, CS_MODULE_CONFIG)
CS_ENTITY(Distribution, CS_DISTRIBUTION)
CS_ENTITY(NotificationChannel, CS_CHANNEL)
CS_ENTITY(NotificationRule, CS_RULE)
CS_ENTITY(NotificationDelivery, CS_DELIVERY)
CS_ENTITY(NotificationState, CS_NOTIFICATION_STATE)
CS_ENTITY(AuditEntry, CS_AUDIT)
CS_ENTITY(License, CS_LICENSE)
CS_ENTITY(IdempotencyRecord, CS_IDEMPOTENCY)
CS_ENTITY(LdapSettings, CS_LDAP_SETTINGS)
CS_ENTITY(OidcSettings, CS_OIDC_SETTINGS)
CS_ENTITY(CaProviderList, CS_CA_PROVIDER_LIST)

}  // namespace

template <class T>
std::string encode(const T& entity) {
  json::object o;
  Fields<T>::write(o, entity);
  return json::serialize(o);
}

template <class T>
domain::Result<T> decode(std::string_view text) {
  try {
    // One arena per decode: the DOM lives only until the entity is filled, so its nodes are
    // carved from a stack buffer (spilling to the heap for big documents) and freed at once.
    unsigned char arena[8192];
    json::monotonic_resource memory(arena, sizeof arena);
    boost::system::error_code ec;
    const json::value v = json::parse(text, ec, &memory);
    if (ec || !v.is_object()) corrupt();
    T entity{};
    Fields<T>::read(v.get_object(), entity);
    return entity;
  } catch (const std::exception&) {
    return domain::makeError(domain::ErrorCode::internal, "stored document is corrupt");
  }
}

#define CS_INSTANTIATE(Type)                      \
  template std::string encode<Type>(const Type&); \
  template domain::Result<Type> decode<Type>(std::string_view);

CS_INSTANTIATE(Certificate)
CS_INSTANTIATE(Job)
CS_INSTANTIATE(Project)
CS_INSTANTIATE(User)
CS_INSTANTIATE(AcmeAccount)
CS_INSTANTIATE(DnsCredential)
CS_INSTANTIATE(Zone)
CS_INSTANTIATE(Credential)
CS_INSTANTIATE(ModuleConfig)
CS_INSTANTIATE(Distribution)
CS_INSTANTIATE(NotificationChannel)
CS_INSTANTIATE(NotificationRule)
CS_INSTANTIATE(NotificationDelivery)
CS_INSTANTIATE(NotificationState)
CS_INSTANTIATE(LdapSettings)
CS_INSTANTIATE(OidcSettings)
CS_INSTANTIATE(CaProviderList)
CS_INSTANTIATE(AuditEntry)
CS_INSTANTIATE(License)
CS_INSTANTIATE(IdempotencyRecord)

}  // namespace certsteward::adapters::codec

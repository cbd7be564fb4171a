// libldap (OpenLDAP 2.5) behind the Directory port. Its result codes are translated here:
// a directory that cannot be reached is `unavailable`, a refused user `unauthenticated`.
#include "adapters/ldap/ldap_directory.hpp"

#include <ldap.h>
#include <sys/time.h>

#include <memory>
#include <utility>

#include "domain/ldap_filter.hpp"

namespace certsteward::adapters::ldap {
namespace {

using domain::ErrorCode;
using domain::makeError;

constexpr const char* kRefused = "invalid username or password";

struct Handle {
  LDAP* ld = nullptr;
  ~Handle() {
    if (ld != nullptr) ldap_unbind_ext_s(ld, nullptr, nullptr);
  }
};

struct Message {
  LDAPMessage* m = nullptr;
  ~Message() {
    if (m != nullptr) ldap_msgfree(m);
  }
};

bool unreachable(int rc) {
  return rc == LDAP_SERVER_DOWN || rc == LDAP_CONNECT_ERROR || rc == LDAP_TIMEOUT ||
         rc == LDAP_UNAVAILABLE || rc == LDAP_BUSY || rc == LDAP_TIMELIMIT_EXCEEDED;
}

domain::Error failure(const char* what, int rc) {
  return makeError(ErrorCode::unavailable,
                   std::string(what) + ": " + ldap_err2string(rc) +
                       (unreachable(rc) ? " (the directory is unreachable)" : ""),
                   unreachable(rc) ? "DIRECTORY_UNREACHABLE" : "DIRECTORY_ERROR");
}

timeval toTimeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

int simpleBind(LDAP* ld, const std::string& dn, std::string_view password) {
  berval cred{static_cast<ber_len_t>(password.size()), const_cast<char*>(password.data())};
  return ldap_sasl_bind_s(ld, dn.empty() ? nullptr : dn.c_str(), LDAP_SASL_SIMPLE, &cred, nullptr,
                          nullptr, nullptr);
}

std::string firstValue(LDAP* ld, LDAPMessage* entry, const std::string& attribute) {
  if (attribute.empty()) return {};
  berval** values = ldap_get_values_len(ld, entry, attribute.c_str());
  if (values == nullptr) return {};
  std::string out = values[0] != nullptr ? std::string(values[0]->bv_val, values[0]->bv_len) : "";
  ldap_value_free_len(values);
  return out;
}

// Opens a connection: TLS as configured, timeouts, no referrals (a referral could send the
// credentials elsewhere), and the service account bound.
domain::Status open(const LdapDirectoryOptions& o, Handle& h) {
  const std::string url = std::string(o.security == LdapSecurity::ldaps ? "ldaps://" : "ldap://") +
                          (o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host) +
                          ":" + std::to_string(o.port);
  int rc = ldap_initialize(&h.ld, url.c_str());
  if (rc != LDAP_SUCCESS) return failure("the directory address is not usable", rc);
  const int version = LDAP_VERSION3;
  ldap_set_option(h.ld, LDAP_OPT_PROTOCOL_VERSION, &version);
  ldap_set_option(h.ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
  const timeval tv = toTimeval(o.timeout);
  ldap_set_option(h.ld, LDAP_OPT_NETWORK_TIMEOUT, &tv);
  ldap_set_option(h.ld, LDAP_OPT_TIMEOUT, &tv);
  if (o.security != LdapSecurity::none) {
    const int demand = LDAP_OPT_X_TLS_DEMAND;
    ldap_set_option(h.ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &demand);
    if (!o.ca_bundle.empty()) ldap_set_option(h.ld, LDAP_OPT_X_TLS_CACERTFILE, o.ca_bundle.c_str());
    const int isServer = 0;
    ldap_set_option(h.ld, LDAP_OPT_X_TLS_NEWCTX, &isServer);  // this handle's own TLS context
  }
  if (o.security == LdapSecurity::starttls) {
    rc = ldap_start_tls_s(h.ld, nullptr, nullptr);
    if (rc != LDAP_SUCCESS) return failure("STARTTLS failed", rc);
  }
  rc = simpleBind(h.ld, o.bind_dn, o.bind_password);
  if (rc == LDAP_INVALID_CREDENTIALS) {
    return makeError(ErrorCode::unavailable, "the directory refused the service account",
                     "DIRECTORY_ERROR");
  }
  if (rc != LDAP_SUCCESS) return failure("the directory refused the connection", rc);
  return {};
}

}  // namespace

LdapDirectory::LdapDirectory(LdapDirectoryOptions options) : options_(std::move(options)) {}

domain::Result<ports::DirectoryUser> LdapDirectory::authenticate(std::string_view username,
                                                                 std::string_view password) {
  // An empty password is an unauthenticated bind (RFC 4513 5.1.2): it would "succeed".
  if (username.empty() || password.empty()) {
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  Handle h;
  if (auto s = open(options_, h); !s) return s.error();

  const std::string filter = domain::userFilter(options_.user_filter, username);
  timeval tv = toTimeval(options_.timeout);
  char dnOnly[] = "1.1";  // RFC 4511: no attributes
  std::string email = options_.email_attribute;
  char* attrs[] = {email.empty() ? dnOnly : email.data(), nullptr};
  Message found;
  int rc = ldap_search_ext_s(h.ld, options_.base_dn.c_str(), LDAP_SCOPE_SUBTREE, filter.c_str(),
                             attrs, 0, nullptr, nullptr, &tv, 2, &found.m);
  if (rc == LDAP_SIZELIMIT_EXCEEDED) {  // the filter names more than one entry: nobody
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  if (rc != LDAP_SUCCESS) return failure("the user search failed", rc);
  if (ldap_count_entries(h.ld, found.m) != 1) {
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  LDAPMessage* entry = ldap_first_entry(h.ld, found.m);
  char* dn = ldap_get_dn(h.ld, entry);
  ports::DirectoryUser user;
  user.username = std::string(username);
  user.distinguished_name = dn != nullptr ? dn : "";
  ldap_memfree(dn);
  user.email = firstValue(h.ld, entry, options_.email_attribute);

  // The password, checked by binding as the user on this connection.
  rc = simpleBind(h.ld, user.distinguished_name, password);
  if (rc == LDAP_INVALID_CREDENTIALS) {
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  if (rc != LDAP_SUCCESS) return failure("the directory did not check the password", rc);

  if (!options_.group_base_dn.empty()) {
    // Groups as the service account sees them (the user may not read groups).
    if (auto s = simpleBind(h.ld, options_.bind_dn, options_.bind_password); s != LDAP_SUCCESS) {
      return failure("the directory refused the service account", s);
    }
    const std::string groups = "(&" + options_.group_filter + "(" + options_.member_attribute +
                               "=" + domain::escapeFilterValue(user.distinguished_name) + "))";
    char* none[] = {dnOnly, nullptr};
    Message listed;
    rc = ldap_search_ext_s(h.ld, options_.group_base_dn.c_str(), LDAP_SCOPE_SUBTREE, groups.c_str(),
                           none, 0, nullptr, nullptr, &tv, 1000, &listed.m);
    if (rc != LDAP_SUCCESS && rc != LDAP_SIZELIMIT_EXCEEDED) {
      return failure("the group search failed", rc);
    }
    for (LDAPMessage* g = ldap_first_entry(h.ld, listed.m); g != nullptr;
         g = ldap_next_entry(h.ld, g)) {
      char* gdn = ldap_get_dn(h.ld, g);
      if (gdn != nullptr) user.groups.emplace_back(gdn);
      ldap_memfree(gdn);
    }
  }
  return user;
}

domain::Status LdapDirectory::test() {
  Handle h;
  return open(options_, h);
}

}  // namespace certsteward::adapters::ldap

// libldap (OpenLDAP 2.5, GnuTLS) behind the Directory port. Its result codes are translated
// here: a directory that cannot be reached is `unavailable`, a refused user `unauthenticated`.
#include <certsteward/adapters/ldap/ldap_directory.hpp>

#include <ldap.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/ldap_filter.hpp>

namespace certsteward::adapters::ldap {
namespace {

using domain::ErrorCode;
using domain::LdapSecurity;
using domain::LdapSettings;
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

std::string describe(const char* what, int rc) {
  return std::string(what) + ": " + ldap_err2string(rc) +
         (unreachable(rc) ? " (the directory is unreachable)" : "");
}

domain::Error failure(const char* what, int rc) {
  return makeError(ErrorCode::unavailable, describe(what, rc),
                   unreachable(rc) ? "DIRECTORY_UNREACHABLE" : "DIRECTORY_ERROR");
}

timeval seconds(int s) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(s);
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

std::string urlOf(const LdapSettings& s, bool secure) {
  const bool v6 = s.host.find(':') != std::string::npos;
  return std::string(secure ? "ldaps://" : "ldap://") + (v6 ? "[" + s.host + "]" : s.host) + ":" +
         std::to_string(s.port);
}

// A handle with protocol 3, no referrals (a referral could send the credentials elsewhere), the
// timeouts, and for TLS a context of its own that demands a certificate the CAs sign (the
// settings' bundle, written to a private file only while the context is built, or the system's).
int initialize(const LdapSettings& s, bool secure, Handle& h, std::string& problem) {
  int rc = ldap_initialize(&h.ld, urlOf(s, secure).c_str());
  if (rc != LDAP_SUCCESS) {
    problem = "the directory address is not usable";
    return rc;
  }
  const int version = LDAP_VERSION3;
  ldap_set_option(h.ld, LDAP_OPT_PROTOCOL_VERSION, &version);
  ldap_set_option(h.ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
  const timeval connect = seconds(s.connect_timeout_seconds);
  const timeval operation = seconds(s.operation_timeout_seconds);
  ldap_set_option(h.ld, LDAP_OPT_NETWORK_TIMEOUT, &connect);
  ldap_set_option(h.ld, LDAP_OPT_TIMEOUT, &operation);
  if (s.security == LdapSecurity::none) return LDAP_SUCCESS;
  const int demand = LDAP_OPT_X_TLS_DEMAND;
  ldap_set_option(h.ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &demand);
  std::string caFile;
  if (!s.ca_bundle.empty()) {
    char path[] = "/tmp/certsteward-ldap-ca-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
      problem = "the CA bundle could not be written to a temporary file";
      return LDAP_LOCAL_ERROR;
    }
    const auto written = write(fd, s.ca_bundle.data(), s.ca_bundle.size());
    close(fd);
    caFile = path;
    if (written != static_cast<ssize_t>(s.ca_bundle.size())) {
      std::remove(path);
      problem = "the CA bundle could not be written to a temporary file";
      return LDAP_LOCAL_ERROR;
    }
    ldap_set_option(h.ld, LDAP_OPT_X_TLS_CACERTFILE, caFile.c_str());
  }
  const int isServer = 0;
  rc = ldap_set_option(h.ld, LDAP_OPT_X_TLS_NEWCTX, &isServer);  // reads the CA file now
  if (!caFile.empty()) std::remove(caFile.c_str());
  if (rc != LDAP_OPT_SUCCESS) {
    problem = "the TLS settings are not usable (is ca_bundle a valid PEM certificate?)";
    return LDAP_LOCAL_ERROR;
  }
  return LDAP_SUCCESS;
}

std::string tlsDescription(LDAP* ld) {
  char* version = nullptr;
  char* cipher = nullptr;
  ldap_get_option(ld, LDAP_OPT_X_TLS_VERSION, &version);
  ldap_get_option(ld, LDAP_OPT_X_TLS_CIPHER, &cipher);
  std::string out = "TLS established and the directory's certificate verified";
  if (version != nullptr) out += std::string(" (") + version + (cipher ? ", " : ")");
  if (cipher != nullptr) out += std::string(cipher) + ")";
  ldap_memfree(version);
  ldap_memfree(cipher);
  return out;
}

// The steps up to and including the service bind, each recorded in `steps` when given. On
// failure, `error` says what went wrong.
bool open(const ports::DirectoryAccess& a, Handle& h, std::vector<ports::DirectoryCheck>* steps,
          domain::Error& error) {
  const LdapSettings& s = a.settings;
  const auto note = [&](const char* step, bool ok, std::string message) {
    if (steps != nullptr) steps->push_back({step, ok, std::move(message)});
  };
  const auto fail = [&](const char* step, domain::Error e) {
    note(step, false, e.message);
    error = std::move(e);
    return false;
  };
  const std::string where = s.host + ":" + std::to_string(s.port);
  std::string problem;
  int rc = initialize(s, s.security == LdapSecurity::ldaps, h, problem);
  if (rc != LDAP_SUCCESS)
    return fail("connect", makeError(ErrorCode::unavailable, problem, "DIRECTORY_ERROR"));
  rc = ldap_connect(h.ld);
  if (s.security == LdapSecurity::ldaps) {
    if (rc != LDAP_SUCCESS) {
      // TCP alone, to tell "nothing listens there" from "TLS failed".
      Handle plain;
      std::string ignored;
      const bool tcp = initialize(s, false, plain, ignored) == LDAP_SUCCESS &&
                       ldap_connect(plain.ld) == LDAP_SUCCESS;
      if (!tcp) return fail("connect", failure(("cannot connect to " + where).c_str(), rc));
      note("connect", true, "connected to " + where);
      return fail("tls", makeError(ErrorCode::unavailable,
                                   "the TLS handshake failed (is the directory's certificate "
                                   "signed by ca_bundle, and valid for " +
                                       s.host + "?)",
                                   "DIRECTORY_ERROR"));
    }
    note("connect", true, "connected to " + where);
    note("tls", true, tlsDescription(h.ld));
  } else {
    if (rc != LDAP_SUCCESS)
      return fail("connect", failure(("cannot connect to " + where).c_str(), rc));
    note("connect", true, "connected to " + where);
    if (s.security == LdapSecurity::starttls) {
      rc = ldap_start_tls_s(h.ld, nullptr, nullptr);
      if (rc != LDAP_SUCCESS) {
        return fail("tls", makeError(ErrorCode::unavailable,
                                     describe("STARTTLS failed", rc) +
                                         " (is the directory's certificate signed by ca_bundle, "
                                         "and valid for " +
                                         s.host + "?)",
                                     "DIRECTORY_ERROR"));  // reached, but not trusted
      }
      note("tls", true, tlsDescription(h.ld));
    }
  }
  rc = simpleBind(h.ld, s.bind_dn, a.bind_password);
  if (rc == LDAP_INVALID_CREDENTIALS) {
    return fail("bind", makeError(ErrorCode::unavailable,
                                  "the directory refused the service account (check bind_dn and "
                                  "bind_password)",
                                  "DIRECTORY_ERROR"));
  }
  if (rc != LDAP_SUCCESS) return fail("bind", failure("the service bind failed", rc));
  note("bind", true,
       s.bind_dn.empty() ? "bound anonymously" : "bound as the service account " + s.bind_dn);
  return true;
}

}  // namespace

namespace {

// The one entry the user filter finds for `username`, with its identity and attributes (no
// groups yet). unauthenticated (kRefused) for none or several.
domain::Result<ports::DirectoryUser> findEntry(const LdapSettings& s, LDAP* ld,
                                               std::string_view username) {
  const std::string filter = domain::userFilter(s.user_filter, username);
  timeval tv = seconds(s.operation_timeout_seconds);
  std::string nameAttr = s.username_attribute;
  std::string emailAttr = s.email_attribute;
  char uuidAttr[] = "entryUUID";  // operational: returned only when asked for
  char guidAttr[] = "objectGUID";
  char* attrs[] = {uuidAttr, guidAttr, nameAttr.data(),
                   emailAttr.empty() ? nullptr : emailAttr.data(), nullptr};
  Message found;
  const int rc = ldap_search_ext_s(ld, s.base_dn.c_str(), LDAP_SCOPE_SUBTREE, filter.c_str(), attrs,
                                   0, nullptr, nullptr, &tv, 2, &found.m);
  if (rc == LDAP_SIZELIMIT_EXCEEDED) {  // the filter names more than one entry: nobody
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  if (rc == LDAP_NO_SUCH_OBJECT) {
    return makeError(ErrorCode::unavailable, "the user search failed: base_dn does not exist",
                     "DIRECTORY_ERROR");
  }
  if (rc != LDAP_SUCCESS) return failure("the user search failed", rc);
  if (ldap_count_entries(ld, found.m) != 1) {
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  LDAPMessage* entry = ldap_first_entry(ld, found.m);
  char* dn = ldap_get_dn(ld, entry);
  ports::DirectoryUser user;
  user.distinguished_name = dn != nullptr ? dn : "";
  ldap_memfree(dn);
  user.username = firstValue(ld, entry, s.username_attribute);
  user.id = firstValue(ld, entry, "entryUUID");
  if (user.id.empty()) {
    const std::string guid = firstValue(ld, entry, "objectGUID");
    user.id = guid.empty() ? "dn:" + user.distinguished_name : "guid:" + domain::toHex(guid);
  }
  user.email = firstValue(ld, entry, s.email_attribute);
  return user;
}

// The groups that list `user`, as the service account (bound on `ld`) sees them.
domain::Status readGroups(const LdapSettings& s, LDAP* ld, ports::DirectoryUser& user) {
  if (s.group_base_dn.empty()) return {};
  timeval tv = seconds(s.operation_timeout_seconds);
  const std::string groups = "(&" + s.group_filter + "(" + s.member_attribute + "=" +
                             domain::escapeFilterValue(user.distinguished_name) + "))";
  char dnOnly[] = "1.1";  // RFC 4511: no attributes
  char* none[] = {dnOnly, nullptr};
  Message listed;
  const int rc = ldap_search_ext_s(ld, s.group_base_dn.c_str(), LDAP_SCOPE_SUBTREE, groups.c_str(),
                                   none, 0, nullptr, nullptr, &tv, 1000, &listed.m);
  // Past 1000 groups the list is cut: a role can only come out lower, never higher.
  if (rc != LDAP_SUCCESS && rc != LDAP_SIZELIMIT_EXCEEDED) {
    return failure("the group search failed", rc);
  }
  for (LDAPMessage* g = ldap_first_entry(ld, listed.m); g != nullptr; g = ldap_next_entry(ld, g)) {
    char* gdn = ldap_get_dn(ld, g);
    if (gdn != nullptr) user.groups.emplace_back(gdn);
    ldap_memfree(gdn);
  }
  return {};
}

}  // namespace

domain::Result<ports::DirectoryUser> LdapDirectory::authenticate(const ports::DirectoryAccess& a,
                                                                 std::string_view username,
                                                                 std::string_view password) {
  // An empty password is an unauthenticated bind (RFC 4513 5.1.2): it would "succeed".
  if (username.empty() || password.empty()) {
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  const LdapSettings& s = a.settings;
  Handle h;
  domain::Error error;
  if (!open(a, h, nullptr, error)) return error;
  auto user = findEntry(s, h.ld, username);
  if (!user) return user.error();

  // The password, checked by binding as the user on this connection.
  int rc = simpleBind(h.ld, user->distinguished_name, password);
  if (rc == LDAP_INVALID_CREDENTIALS) {
    return makeError(ErrorCode::unauthenticated, kRefused, "INVALID_CREDENTIALS");
  }
  if (rc != LDAP_SUCCESS) return failure("the directory did not check the password", rc);
  if (!s.group_base_dn.empty()) {
    // Groups as the service account sees them (the user may not read groups).
    if (rc = simpleBind(h.ld, s.bind_dn, a.bind_password); rc != LDAP_SUCCESS) {
      return failure("the directory refused the service account", rc);
    }
    if (auto st = readGroups(s, h.ld, *user); !st) return st.error();
  }
  return user;
}

domain::Result<ports::DirectoryUser> LdapDirectory::lookup(const ports::DirectoryAccess& a,
                                                           std::string_view username) {
  if (username.empty()) return makeError(ErrorCode::not_found, "no such entry");
  Handle h;
  domain::Error error;
  if (!open(a, h, nullptr, error)) return error;
  auto user = findEntry(a.settings, h.ld, username);
  if (!user) {
    if (user.error().code == ErrorCode::unauthenticated) {
      return makeError(ErrorCode::not_found, "the directory no longer lists this user");
    }
    return user.error();
  }
  if (auto st = readGroups(a.settings, h.ld, *user); !st) return st.error();
  return user;
}

std::vector<ports::DirectoryCheck> LdapDirectory::test(const ports::DirectoryAccess& a) {
  std::vector<ports::DirectoryCheck> steps;
  Handle h;
  domain::Error error;
  if (!open(a, h, &steps, error)) return steps;
  const LdapSettings& s = a.settings;
  timeval tv = seconds(s.operation_timeout_seconds);
  char dnOnly[] = "1.1";
  char* none[] = {dnOnly, nullptr};
  Message found;
  // base_dn itself, as the service account sees it (users are searched under it).
  char any[] = "(objectClass=*)";
  int rc = ldap_search_ext_s(h.ld, s.base_dn.c_str(), LDAP_SCOPE_BASE, any, none, 0, nullptr,
                             nullptr, &tv, 1, &found.m);
  if (rc == LDAP_NO_SUCH_OBJECT) {
    steps.push_back({"search", false, "base_dn " + s.base_dn + " does not exist"});
    return steps;
  }
  if (rc != LDAP_SUCCESS) {
    steps.push_back({"search", false, describe("the search under base_dn failed", rc)});
    return steps;
  }
  if (ldap_count_entries(h.ld, found.m) != 1) {
    steps.push_back({"search", false, "the service account cannot read base_dn " + s.base_dn});
    return steps;
  }
  steps.push_back({"search", true, "searched under " + s.base_dn});
  return steps;
}

}  // namespace certsteward::adapters::ldap

// How long a refused login takes, by what was wrong: a local user's wrong password (the
// reference), an unknown name, a directory user's wrong password, and a filter-injection name —
// through AuthService with the real bcrypt hasher (cost 12, the default) and LdapDirectory
// against a real slapd on 127.0.0.1. The answers are identical; the times should be close, so
// that timing does not tell which names exist. Prints medians and ratios to the reference.
// Usage: certsteward_login_timing_bench [rounds]  (default 15)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/bcrypt_password_hasher.hpp>
#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/adapters/ldap/ldap_directory.hpp>
#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/directory_login.hpp>
#include <certsteward/services/ldap_settings_service.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/fakes.hpp>
#include <certsteward/testing/sequential_ids.hpp>
#include "support/slapd_server.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 15;
  testing::SlapdServer slapd;
  if (!slapd.available()) {
    std::printf("login timing: skipped (%s)\n", slapd.reason().c_str());
    return 0;
  }
  adapters::memory::MemoryStore store;
  testing::FakeClock clock;
  testing::SequentialIds ids{clock};
  adapters::crypto::OpenSslMac auditMac{"bench audit key"};
  adapters::crypto::AesGcmSecretBox secrets{"bench secrets key of at least 32 chars"};
  adapters::crypto::BcryptPasswordHasher hasher{12};
  testing::FakeTokenCodec tokens;
  testing::FakeRandom random;
  testing::FakeOtpHasher otp;
  testing::FakeMac csrf{"csrf"};
  UnitOfWork work{store.transactions(), store.projects()};
  AccessControl access{store.memberships(), store.projects()};
  AuditService audit{store.auditLog(), auditMac, ids, clock, store.rateLimits(), access};
  adapters::codec::LdapSettingsDocument doc{store.settings(), clock};
  LdapSettingsService settings{{doc, secrets}, work, access, audit};
  adapters::ldap::LdapDirectory directory;
  DirectoryLogin directoryLogin{
      {doc, directory, secrets, store.users(), ids, clock}, work, access, audit};
  AuthPolicy unlimited;
  unlimited.login_per_ip_per_minute = 1'000'000;
  unlimited.login_per_username_per_minute = 1'000'000;
  AuthService auth{{store.users(), store.refreshTokens(), store.rateLimits(), hasher, tokens, ids,
                    random, clock, secrets, otp, csrf},
                   unlimited,
                   work,
                   audit,
                   &directoryLogin};

  User owner;
  owner.id = ids.next();
  owner.username = "owner";
  owner.org_role = OrgRole::owner;
  owner.password_hash = *hasher.hash("the owner's password");
  (void)store.users().create(owner);
  LdapSettings s;
  s.enabled = true;
  s.host = "127.0.0.1";
  s.port = slapd.port();
  s.security = LdapSecurity::none;
  s.bind_dn = testing::SlapdServer::kService;
  s.base_dn = testing::SlapdServer::kBase;
  s.user_filter = "(&(objectClass=inetOrgPerson)(uid={username}))";
  s.group_base_dn = testing::SlapdServer::kGroups;
  if (!settings.put(Principal{owner, ""}, {"", ""}, s,
                    std::string(testing::SlapdServer::kServicePassword))) {
    std::printf("login timing: the settings were refused\n");
    return 1;
  }

  struct Kind {
    const char* what;
    const char* user;
    const char* password;
    std::vector<double> ms;
  };
  std::vector<Kind> kinds{{"local user, wrong password (reference)", "owner", "wrong", {}},
                          {"unknown name", "nobody-here", "wrong", {}},
                          {"directory user, wrong password", "alice", "wrong", {}},
                          {"filter-injection name", "*)(uid=*", "wrong", {}}};
  for (int r = 0; r < rounds; ++r) {
    for (auto& k : kinds) {  // interleaved, so drift on a shared machine hits every kind
      const auto t0 = Clock::now();
      auto refused = auth.login(k.user, k.password, RequestContext{"10.0.0.1", "req-1"});
      k.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (refused.ok() || refused.error().reason != "INVALID_CREDENTIALS") {
        std::printf("login timing: %s was not the ordinary refusal\n", k.what);
        return 1;
      }
    }
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double reference = median(kinds[0].ms);
  std::printf("login timing: %d rounds, bcrypt cost 12, slapd on loopback\n", rounds);
  for (const auto& k : kinds) {
    const double m = median(k.ms);
    std::printf("  %-40s median %7.1f ms  %.2fx the reference\n", k.what, m, m / reference);
  }
  return 0;
}

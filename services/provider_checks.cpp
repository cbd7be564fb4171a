#include <certsteward/services/provider_checks.hpp>

#include <certsteward/domain/encoding.hpp>

#include <algorithm>

namespace certsteward::services {
namespace {

// The CA's refusal is about the account, not about the caller's role: never a 403.
domain::Error accountRefusal(domain::Error e) {
  if (e.code == domain::ErrorCode::permission_denied)
    e.code = domain::ErrorCode::failed_precondition;
  return e;
}

}  // namespace

domain::Result<domain::AcmeAccount> ProviderChecks::accountToManage(const Principal& who,
                                                                    const domain::Id& projectId,
                                                                    const domain::Id& id) {
  // Tenancy first (404 for strangers), then the role (403 for members below admin).
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto account = p_.accounts.get(projectId, id);
  if (!account) return account.error();
  if (auto s = access_.check(who, Action::manage_project_config, projectId); !s) return s.error();
  return account;
}

domain::Result<domain::AcmeAccount> ProviderChecks::validateAccount(const Principal& who,
                                                                    const RequestContext& ctx,
                                                                    const domain::Id& projectId,
                                                                    const domain::Id& id) {
  auto account = accountToManage(who, projectId, id);
  if (!account) return account.error();
  auto state = p_.issuer.registerAccount(*account);
  if (!state) return accountRefusal(state.error());
  account->account_url = state->account_url;
  if (!state->key_sealed.empty()) account->key_sealed = state->key_sealed;
  account->status = state->status.empty() ? "valid" : state->status;
  account->is_registered = account->status == "valid";
  account->last_validated_at = p_.clock.now();
  account->updated_at = p_.clock.now();
  const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
    if (auto s = p_.accounts.update(*account); !s) return s;
    return audit_.record(&who, ctx, "acme_account.validate", "acme_account", id, projectId,
                         account->status);
  });
  if (!done) return done.error();
  return *account;
}

domain::Result<domain::AcmeAccount> ProviderChecks::rolloverAccountKey(const Principal& who,
                                                                       const RequestContext& ctx,
                                                                       const domain::Id& projectId,
                                                                       const domain::Id& id) {
  auto account = accountToManage(who, projectId, id);
  if (!account) return account.error();
  if (!account->is_registered || account->account_url.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the account is not registered yet: validate it first");
  }
  auto state = p_.issuer.rolloverKey(*account);
  if (!state) return accountRefusal(state.error());
  // The CA now knows only the new key: it is stored before anything else can fail.
  account->key_sealed = state->key_sealed;
  account->last_validated_at = p_.clock.now();
  account->updated_at = p_.clock.now();
  const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
    if (auto s = p_.accounts.update(*account); !s) return s;
    return audit_.record(&who, ctx, "acme_account.key_rollover", "acme_account", id, projectId, "");
  });
  if (!done) return done.error();
  return *account;
}

domain::Result<DnsCheck> ProviderChecks::testDnsCredential(const Principal& who,
                                                           const RequestContext& ctx,
                                                           const domain::Id& projectId,
                                                           const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto credential = p_.dnsCredentials.get(projectId, id);
  if (!credential) return credential.error();
  if (auto s = access_.check(who, Action::manage_project_config, projectId); !s) return s.error();
  std::optional<domain::Zone> zone;
  for (std::int64_t page = 1; !zone && page <= 100; ++page) {
    auto zones = p_.zones.list(projectId, domain::PageRequest{page, 100});
    if (!zones) return zones.error();
    for (const auto& z : zones->items) {
      if (z.dns_credential_id == id) {
        zone = z;
        break;
      }
    }
    if (static_cast<std::int64_t>(zones->items.size()) < 100) break;
  }
  if (!zone) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "no zone uses this DNS credential: the test writes a record into one");
  }
  std::string secret;
  if (!credential->secret_sealed.empty()) {
    auto opened = p_.secrets.open(credential->secret_sealed);
    if (!opened)
      return makeError(domain::ErrorCode::internal, "the DNS secret cannot be decrypted");
    secret = std::move(*opened);
  }
  DnsCheck check;
  check.zone = zone->domain;
  auto provider = p_.dnsProviders.make(*credential, secret);
  if (!provider) {
    check.steps.push_back({"configure", false, provider.error().message});
  } else {
    // A value shaped like an ACME one (43 base64url characters), which every provider takes.
    std::string raw =
        "certsteward-test-" + std::to_string(p_.clock.now().time_since_epoch().count());
    raw.resize(32, '.');
    // An acme-dns account answers for its own name only (the zone is that name).
    const std::string name = credential->provider == "acmedns"
                                 ? zone->domain + "."
                                 : "_certsteward-test." + zone->domain + ".";
    const ports::TxtRecord record{zone->domain + ".", name, domain::base64UrlEncode(raw), 30};
    check.record = record.name;
    const auto add = (*provider)->present(record);
    check.steps.push_back({"add", add.ok(), add.ok() ? "added" : add.error().message});
    if (add) {
      const auto seen = (*provider)->waitVisible(record, dnsTimeout_);
      check.steps.push_back(
          {"visible", seen.ok(),
           seen.ok() ? "seen on the authoritative servers" : seen.error().message});
      const auto removed = (*provider)->cleanup(record);
      check.steps.push_back(
          {"remove", removed.ok(), removed.ok() ? "removed" : removed.error().message});
    }
  }
  check.ok = !check.steps.empty() && std::all_of(check.steps.begin(), check.steps.end(),
                                                 [](const auto& s) { return s.ok; });
  if (auto s = audit_.record(&who, ctx, "dns_credential.test", "dns_credential", id, projectId,
                             check.ok ? "ok" : "failed");
      !s) {
    return s.error();
  }
  return check;
}

}  // namespace certsteward::services

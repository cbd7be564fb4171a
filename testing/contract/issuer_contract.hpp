// Contract of Issuer on every adapter (and on an embedding team's own CA): an account registers
// and is found again; a certificate is issued for exactly the names asked, each proven through the
// DNS provider with its DNS-01 record (a wildcard's on its base name), every record removed again,
// the order counted in IssueRequest::report; a second order gives another serial; an issued
// certificate can be revoked; a raised stop signal abandons the order at its next step
// (unavailable, "stopped ..."); a refused DNS record fails the order, reported; key rollover keeps
// the account under a new key and needs a registered account (failed_precondition); an
// unreachable CA is unavailable and counts no order.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_ISSUER_HARNESSES as the list of harnesses to run it against. A harness is
// default-constructible and provides:
//   bool available(); std::string reason();      // its CA (and DNS server) run here, or why not
//   ports::Issuer& issuer();
//   domain::AcmeAccount account();               // at a CA that answers, not registered yet
//   std::string domain();                        // names under it can be proven: "example.test"
//   ports::DnsProvider& dns();                   // publishes in that domain's zone, where the CA
//   looks std::vector<std::string> namesIn(const ports::IssuedCertificate&);  // what it covers
//   void makeUnreachable();                      // account() now names a CA that is down
#pragma once

#ifndef CERTSTEWARD_ISSUER_HARNESSES
#error "define CERTSTEWARD_ISSUER_HARNESSES (the issuer harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <certsteward/domain/stop_signal.hpp>
#include <certsteward/ports/dns_provider.hpp>
#include <certsteward/ports/issuer.hpp>

namespace certsteward::testing::issuer_contract {

// The harness's DNS provider, watched: which records were presented, which are still published.
// `onPresent` runs before each record goes out; `refuse` makes present() fail without sending.
class WatchedDns : public ports::DnsProvider {
 public:
  explicit WatchedDns(ports::DnsProvider& inner) : inner_(inner) {}
  std::function<void()> onPresent;
  bool refuse = false;

  domain::Status present(const ports::TxtRecord& r) override {
    if (onPresent) onPresent();
    if (refuse) {
      return domain::makeError(domain::ErrorCode::permission_denied,
                               "the DNS server refused the update");
    }
    auto s = inner_.present(r);
    std::lock_guard lock(mu_);
    presented_.insert(r.name);
    if (s) ++published_[{r.name, r.value}];
    return s;
  }
  domain::Status cleanup(const ports::TxtRecord& r) override {
    auto s = inner_.cleanup(r);
    std::lock_guard lock(mu_);
    if (s) published_.erase({r.name, r.value});
    return s;
  }
  domain::Status waitVisible(const ports::TxtRecord& r, domain::Duration timeout) override {
    return inner_.waitVisible(r, timeout);
  }
  std::set<std::string> presented() const {
    std::lock_guard lock(mu_);
    return presented_;
  }
  // Records presented and not removed since.
  std::size_t published() const {
    std::lock_guard lock(mu_);
    return published_.size();
  }

 private:
  ports::DnsProvider& inner_;
  mutable std::mutex mu_;
  std::set<std::string> presented_;
  std::map<std::pair<std::string, std::string>, int> published_;
};

// The error's message, or nothing (doctest builds *_MESSAGE texts even for passing checks).
template <class R>
std::string whyNot(const R& result) {
  return result.ok() ? std::string() : result.error().message;
}

// `account` registered, with what the CA answered kept as the service keeps it.
template <class H>
domain::AcmeAccount registered(H& h, domain::AcmeAccount account) {
  auto state = h.issuer().registerAccount(account);
  REQUIRE_MESSAGE(state.ok(), whyNot(state));
  account.account_url = state->account_url;
  if (!state->key_sealed.empty()) account.key_sealed = state->key_sealed;
  account.status = state->status;
  return account;
}

inline std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace certsteward::testing::issuer_contract

TEST_CASE_TEMPLATE("issuer: an account registers, and registering it again finds the same account",
                   H, CERTSTEWARD_ISSUER_HARNESSES) {
  using namespace certsteward::testing::issuer_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  auto first = h.issuer().registerAccount(h.account());
  REQUIRE_MESSAGE(first.ok(), whyNot(first));
  CHECK(first->status == "valid");
  CHECK_FALSE(first->account_url.empty());
  auto account = h.account();
  account.account_url = first->account_url;
  account.key_sealed = first->key_sealed.empty() ? account.key_sealed : first->key_sealed;
  auto again = h.issuer().registerAccount(account);
  REQUIRE_MESSAGE(again.ok(), whyNot(again));
  CHECK(again->account_url == first->account_url);
  CHECK(again->key_sealed.empty());  // no new key was made
}

TEST_CASE_TEMPLATE(
    "issuer: a certificate for exactly the names asked, each proven through the DNS provider and "
    "its record removed, the order reported, and it can be revoked",
    H, CERTSTEWARD_ISSUER_HARNESSES) {
  using namespace certsteward::testing::issuer_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto account = registered(h, h.account());
  WatchedDns dns(h.dns());
  const std::vector<std::string> names{"contract." + h.domain(), "*.contract." + h.domain()};
  certsteward::domain::StopSignal stop;  // never raised
  certsteward::ports::IssueReport report;
  auto issued = h.issuer().issue(
      {account, names, certsteward::domain::KeyType::ecdsa_p256, &stop, &report}, dns);
  REQUIRE_MESSAGE(issued.ok(), whyNot(issued));
  CHECK(sorted(h.namesIn(*issued)) == sorted(names));
  CHECK(issued->certificate_pem.find("-----BEGIN CERTIFICATE-----") != std::string::npos);
  CHECK_FALSE(issued->private_key_pem.empty());
  CHECK_FALSE(issued->serial_number.empty());
  CHECK(issued->expires_at > issued->not_before);
  CHECK(dns.presented() ==
        std::set<std::string>{"_acme-challenge.contract." + h.domain() + "."});  // one owner name
  CHECK(dns.published() == 0);
  CHECK(report.orders_created == 1);
  CHECK(report.failed_validations.empty());
  CHECK_FALSE(report.rate_limited);

  // Another order gives another certificate.
  WatchedDns single(h.dns());
  auto next = h.issuer().issue(
      {account, {"contract-next." + h.domain()}, certsteward::domain::KeyType::ecdsa_p256}, single);
  REQUIRE_MESSAGE(next.ok(), whyNot(next));
  CHECK(next->serial_number != issued->serial_number);
  CHECK(h.namesIn(*next) == std::vector<std::string>{"contract-next." + h.domain()});
  CHECK(single.presented() ==
        std::set<std::string>{"_acme-challenge.contract-next." + h.domain() + "."});
  CHECK(single.published() == 0);

  const auto revoked = h.issuer().revoke(account, issued->certificate_pem);
  CHECK_MESSAGE(revoked.ok(), whyNot(revoked));
}

TEST_CASE_TEMPLATE(
    "issuer: a raised stop signal abandons the order at its next step, leaving no record behind", H,
    CERTSTEWARD_ISSUER_HARNESSES) {
  using namespace certsteward::testing::issuer_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto account = registered(h, h.account());
  const std::vector<std::string> names{"contract-stop." + h.domain(),
                                       "contract-stop-2." + h.domain()};

  // Raised before the call: nothing is ordered.
  certsteward::domain::StopSignal before;
  before.request();
  WatchedDns untouched(h.dns());
  certsteward::ports::IssueReport none;
  auto stopped = h.issuer().issue(
      {account, names, certsteward::domain::KeyType::ecdsa_p256, &before, &none}, untouched);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().code == certsteward::domain::ErrorCode::unavailable);
  CHECK(stopped.error().message.starts_with("stopped"));
  CHECK(untouched.presented().empty());
  CHECK(none.orders_created == 0);

  // Raised while the first name is being proven: the next step is not taken.
  certsteward::domain::StopSignal during;
  WatchedDns dns(h.dns());
  dns.onPresent = [&] { during.request(); };
  auto abandoned =
      h.issuer().issue({account, names, certsteward::domain::KeyType::ecdsa_p256, &during}, dns);
  REQUIRE_FALSE(abandoned.ok());
  CHECK(abandoned.error().code == certsteward::domain::ErrorCode::unavailable);
  CHECK(abandoned.error().message.starts_with("stopped"));
  CHECK_FALSE(dns.presented().empty());
  CHECK(dns.published() == 0);
}

TEST_CASE_TEMPLATE("issuer: a DNS provider that refuses the record fails the order, reported", H,
                   CERTSTEWARD_ISSUER_HARNESSES) {
  using namespace certsteward::testing::issuer_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto account = registered(h, h.account());
  WatchedDns dns(h.dns());
  dns.refuse = true;
  certsteward::ports::IssueReport report;
  auto refused = h.issuer().issue({account,
                                   {"contract-refused." + h.domain()},
                                   certsteward::domain::KeyType::ecdsa_p256,
                                   nullptr,
                                   &report},
                                  dns);
  REQUIRE_FALSE(refused.ok());
  CHECK(report.orders_created == 1);
  CHECK(dns.published() == 0);
}

TEST_CASE_TEMPLATE(
    "issuer: key rollover keeps the account under a new key, an unregistered account cannot roll "
    "over",
    H, CERTSTEWARD_ISSUER_HARNESSES) {
  using namespace certsteward::testing::issuer_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto before = registered(h, h.account());
  auto rolled = h.issuer().rolloverKey(before);
  REQUIRE_MESSAGE(rolled.ok(), whyNot(rolled));
  CHECK(rolled->account_url == before.account_url);
  CHECK_FALSE(rolled->key_sealed.empty());
  CHECK(rolled->key_sealed != before.key_sealed);
  auto after = before;
  after.key_sealed = rolled->key_sealed;
  auto found = h.issuer().registerAccount(after);
  REQUIRE_MESSAGE(found.ok(), whyNot(found));
  CHECK(found->account_url == before.account_url);

  auto unregistered = h.issuer().rolloverKey(h.account());
  REQUIRE_FALSE(unregistered.ok());
  CHECK(unregistered.error().code == certsteward::domain::ErrorCode::failed_precondition);
}

TEST_CASE_TEMPLATE("issuer: an unreachable CA is unavailable and counts no order", H,
                   CERTSTEWARD_ISSUER_HARNESSES) {
  using namespace certsteward::testing::issuer_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  h.makeUnreachable();
  const auto registering = h.issuer().registerAccount(h.account());
  REQUIRE_FALSE(registering.ok());
  CHECK(registering.error().code == certsteward::domain::ErrorCode::unavailable);
  WatchedDns dns(h.dns());
  certsteward::ports::IssueReport report;
  auto issued = h.issuer().issue({h.account(),
                                  {"contract-down." + h.domain()},
                                  certsteward::domain::KeyType::ecdsa_p256,
                                  nullptr,
                                  &report},
                                 dns);
  REQUIRE_FALSE(issued.ok());
  CHECK(issued.error().code == certsteward::domain::ErrorCode::unavailable);
  CHECK(report.orders_created == 0);
  CHECK(dns.presented().empty());
}

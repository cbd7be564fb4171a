// Fakes for the ports that are not the store, for tests of the services over the memory store —
// this project's and an embedding team's. None of them is secure or durable: they make the
// services runnable in one process, deterministically. Thread-safe unless noted.
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <certsteward/domain/events.hpp>
#include <certsteward/ports/background.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/dns_provider.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/ports/key_bundles.hpp>
#include <certsteward/ports/license_verifier.hpp>
#include <certsteward/ports/mac.hpp>
#include <certsteward/ports/notifier.hpp>
#include <certsteward/ports/otp_hasher.hpp>
#include <certsteward/ports/password_hasher.hpp>
#include <certsteward/ports/random.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/time_zones.hpp>
#include <certsteward/ports/token_codec.hpp>

namespace certsteward::testing {

// A keyed, deterministic 32-byte tag (FNV-1a lanes over key and message): the same message
// gives the same tag, another key or message another one. Not a MAC an attacker cannot forge.
class FakeMac : public ports::Mac {
 public:
  explicit FakeMac(std::string key) : key_(std::move(key)) {}
  std::string sign(std::string_view message) const override {
    std::string out;
    for (std::uint64_t lane = 0; lane < 4; ++lane) {
      std::uint64_t h = 1469598103934665603ULL ^ (lane * 0x9e3779b97f4a7c15ULL);
      for (const char c : key_ + '\0' + std::string(message)) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
      }
      for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>(h >> (8 * i)));
    }
    return out;
  }

 private:
  std::string key_;
};

// "fake:" + the plaintext reversed: shows that sealing happened, hides nothing.
class FakeSecretBox : public ports::SecretBox {
 public:
  domain::Result<std::string> seal(std::string_view plaintext) const override {
    return "fake:" + std::string(plaintext.rbegin(), plaintext.rend());
  }
  domain::Result<std::string> open(std::string_view sealed) const override {
    if (!sealed.starts_with("fake:")) {
      return domain::makeError(domain::ErrorCode::invalid_argument, "not sealed by FakeSecretBox");
    }
    sealed.remove_prefix(5);
    return std::string(sealed.rbegin(), sealed.rend());
  }
};

// Runs the work on the calling thread; the tick never fires (no heartbeat is needed when
// nothing else competes for the job); forEach runs one piece after the other. pause() returns
// at once.
class InlineBackground : public ports::Background {
 public:
  void whileRunning(domain::Duration, const std::function<void()>&,
                    const std::function<void()>& work) override {
    work();
  }
  void forEach(std::size_t count, std::size_t,
               const std::function<void(std::size_t)>& work) override {
    for (std::size_t i = 0; i < count; ++i)
      work(i);
  }
  void pause(domain::Duration) override {}
};

// Keeps every event it is given.
class RecordingNotifierFake : public ports::Notifier {
 public:
  domain::Status notify(const domain::Event& event) override {
    std::lock_guard lock(mu_);
    events_.push_back(event);
    return {};
  }
  std::vector<domain::Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<domain::Event> events_;
};

// A DNS server in memory shared by every provider the factory makes: records are visible as
// soon as they are present. Like a real server it refuses a record outside the credential's zone
// (invalid_argument), a secret it does not know (requireSecret: permission_denied) and, while it
// is down (setReachable), every call (unavailable). The factory lists this build's kinds (rfc2136
// and exec) and makes a provider for a credential of any kind — or, given the kinds it drives,
// for those only (others failed_precondition, as a build without them). No kind needs a setting.
// Failures to inject: the next `n` removals fail as an unreachable DNS server would
// (failCleanups), and records stay invisible until an instant (visibleFrom: waitVisible answers
// at once, as a provider whose poll interval is longer than the time it was given).
class InMemoryDns : public ports::DnsProviderFactory {
 public:
  InMemoryDns() = default;
  explicit InMemoryDns(std::vector<std::string> kinds)
      : kinds_(std::move(kinds)), onlyListedKinds_(true) {}

  std::vector<ports::DnsProviderKind> kinds() const override {
    std::vector<ports::DnsProviderKind> out;
    for (const auto& kind : kinds_)
      out.push_back({kind, true, ""});
    return out;
  }
  domain::Result<ports::DnsProviderPtr> make(const domain::DnsCredential& credential,
                                             const std::string& secret) override {
    if (onlyListedKinds_ &&
        std::find(kinds_.begin(), kinds_.end(), credential.provider) == kinds_.end()) {
      return domain::makeError(domain::ErrorCode::failed_precondition,
                               "DNS provider '" + credential.provider + "' is not known here");
    }
    return ports::DnsProviderPtr(std::make_unique<Provider>(*this, secret));
  }
  bool has(const std::string& name, const std::string& value) const {
    std::lock_guard lock(mu_);
    return records_.count({name, value}) == 1;
  }
  // How many records are published now.
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return records_.size();
  }
  // How many records were ever published.
  std::size_t published() const {
    std::lock_guard lock(mu_);
    return published_;
  }
  // Providers made with another secret are refused from now on.
  void requireSecret(std::string secret) {
    std::lock_guard lock(mu_);
    secret_ = std::move(secret);
  }
  void setReachable(bool reachable) {
    std::lock_guard lock(mu_);
    reachable_ = reachable;
  }
  void failCleanups(int n) {
    std::lock_guard lock(mu_);
    failingCleanups_ = n;
  }
  void visibleFrom(std::chrono::steady_clock::time_point at) {
    std::lock_guard lock(mu_);
    visibleFrom_ = at;
  }
  int cleanupCalls() const {
    std::lock_guard lock(mu_);
    return cleanupCalls_;
  }
  int waitCalls() const {
    std::lock_guard lock(mu_);
    return waitCalls_;
  }
  // acme-dns accounts: each registration gets the next subdomain (…0001, …0002) under
  // auth.example.net, unless the server is unreachable (setReachable(false)).
  domain::Result<ports::RegisteredDnsAccount> registerAccount(
      const domain::DnsCredential& credential) override {
    if (credential.provider != "acmedns") {
      return ports::DnsProviderFactory::registerAccount(credential);
    }
    std::lock_guard lock(mu_);
    ++registrations_;
    if (!reachable_) {
      return domain::makeError(domain::ErrorCode::unavailable,
                               "the acme-dns server did not answer");
    }
    char tail[13];
    std::snprintf(tail, sizeof tail, "%012d", registrations_);
    const std::string subdomain = std::string("8e5700ea-a4bf-41c7-8a77-") + tail;
    ports::RegisteredDnsAccount account;
    account.settings = credential.settings;
    account.settings["username"] = std::string("c36f50e8-4632-44f0-83fe-") + tail;
    account.settings["subdomain"] = subdomain;
    account.settings["fulldomain"] = subdomain + ".auth.example.net";
    account.secret = "acme-dns-key-" + std::string(tail);
    account.served_name = subdomain + ".auth.example.net";
    return account;
  }
  int registrations() const {
    std::lock_guard lock(mu_);
    return registrations_;
  }

 private:
  class Provider : public ports::DnsProvider {
   public:
    Provider(InMemoryDns& dns, std::string secret) : dns_(dns), secret_(std::move(secret)) {}
    domain::Status present(const ports::TxtRecord& r) override {
      std::lock_guard lock(dns_.mu_);
      if (auto refused = dns_.refusal(secret_, r); !refused) return refused;
      dns_.records_.insert({r.name, r.value});
      ++dns_.published_;
      return {};
    }
    domain::Status cleanup(const ports::TxtRecord& r) override {
      std::lock_guard lock(dns_.mu_);
      ++dns_.cleanupCalls_;
      if (dns_.failingCleanups_ > 0) {
        --dns_.failingCleanups_;
        return domain::makeError(domain::ErrorCode::unavailable, "the DNS server did not answer");
      }
      if (auto refused = dns_.refusal(secret_, r); !refused) return refused;
      dns_.records_.erase({r.name, r.value});
      return {};
    }
    domain::Status waitVisible(const ports::TxtRecord& r, domain::Duration) override {
      std::lock_guard lock(dns_.mu_);
      ++dns_.waitCalls_;
      if (dns_.reachable_ && dns_.records_.count({r.name, r.value}) == 1 &&
          std::chrono::steady_clock::now() >= dns_.visibleFrom_) {
        return {};
      }
      return domain::makeError(domain::ErrorCode::unavailable,
                               "the TXT record " + r.name + " is not visible yet");
    }

   private:
    InMemoryDns& dns_;
    std::string secret_;
  };

  // Why the server refuses a change of `r` by a provider holding `secret` (ok when it does not).
  // Called with mu_ held.
  domain::Status refusal(const std::string& secret, const ports::TxtRecord& r) const {
    if (!reachable_) {
      return domain::makeError(domain::ErrorCode::unavailable, "the DNS server did not answer");
    }
    if (secret_ && *secret_ != secret) {
      return domain::makeError(domain::ErrorCode::permission_denied,
                               "the DNS server refused the update (bad key)");
    }
    if (!r.zone.empty() && !inZone(r.name, r.zone)) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "the name " + r.name + " is not in the zone " + r.zone);
    }
    return {};
  }
  // Whether `name` is `zone` or below it (fully qualified, compared without case).
  static bool inZone(const std::string& name, const std::string& zone) {
    const auto lower = [](std::string text) {
      for (char& c : text)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!text.ends_with('.')) text += '.';
      return text;
    };
    const std::string n = lower(name);
    const std::string z = lower(zone);
    return n == z || (n.size() > z.size() && n.ends_with("." + z));
  }

  std::vector<std::string> kinds_{"rfc2136", "exec"};
  bool onlyListedKinds_ = false;
  mutable std::mutex mu_;
  std::set<std::pair<std::string, std::string>> records_;
  std::size_t published_ = 0;
  std::optional<std::string> secret_;
  bool reachable_ = true;
  int failingCleanups_ = 0;
  int cleanupCalls_ = 0;
  int waitCalls_ = 0;
  int registrations_ = 0;
  std::chrono::steady_clock::time_point visibleFrom_{};
};

// "fake-hash:" + the password: instant, and verify accepts exactly the hashed password.
class FakePasswordHasher : public ports::PasswordHasher {
 public:
  domain::Result<std::string> hash(std::string_view password) const override {
    return "fake-hash:" + std::string(password);
  }
  bool verify(std::string_view password, std::string_view hash) const override {
    return hash == "fake-hash:" + std::string(password);
  }
};

// Distinct, predictable bytes: a counter spread over the requested length.
class FakeRandom : public ports::Random {
 public:
  std::string bytes(std::size_t n) override {
    std::lock_guard lock(mu_);
    std::string out(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<char>((counter_ * 131 + i * 7 + 1) & 0xff);
    ++counter_;
    return out;
  }

 private:
  std::mutex mu_;
  std::uint64_t counter_ = 1;
};

// A 20-byte keyed tag in place of HMAC-SHA1: codes computed with it agree with each other,
// not with an authenticator app.
class FakeOtpHasher : public ports::OtpHasher {
 public:
  std::string hmacSha1(std::string_view key, std::string_view message) const override {
    return FakeMac(std::string(key)).sign(message).substr(0, 20);
  }
};

// Tokens are opaque handles ("fake-token-<n>") to the claims kept here; decode refuses unknown
// handles (TOKEN_INVALID) and expired claims (TOKEN_EXPIRED) as a signed-token codec does.
class FakeTokenCodec : public ports::TokenCodec {
 public:
  domain::Result<std::string> encode(const ports::TokenClaims& claims) const override {
    std::lock_guard lock(mu_);
    const std::string token = "fake-token-" + std::to_string(claims_.size() + 1);
    claims_.emplace(token, claims);
    return token;
  }
  domain::Result<ports::TokenClaims> decode(std::string_view token,
                                            domain::Timestamp now) const override {
    std::lock_guard lock(mu_);
    const auto it = claims_.find(std::string(token));
    if (it == claims_.end()) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "unknown token",
                               "TOKEN_INVALID");
    }
    if (it->second.expires_at <= now) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "token expired",
                               "TOKEN_EXPIRED");
    }
    return it->second;
  }

 private:
  mutable std::mutex mu_;
  mutable std::map<std::string, ports::TokenClaims> claims_;
};

// A CA in process. registerAccount answers a fixed account URL; issue() proves control of each
// name through the DNS provider it is given (present, waitVisible, cleanup of the DNS-01 record
// "_acme-challenge.<name>." — of the base name for a wildcard — as ACME does; a failed removal
// does not fail the order), or for an http-01 request through its responder (present, then
// cleanup, per name) and returns `material` for the names, or placeholder PEM text naming
// them ("fake <name> <name>...") valid for `validity`; rolloverKey answers a new "sealed" key.
// A raised stop signal ends issue() before its next step (unavailable, reason "stopped").
// Failures to inject: `refusal` is returned by every call instead, before any order (a CA that
// says no, or that cannot be reached); `failure` ends issue() after the proof, reported as the
// ACME adapter reports it (a "rateLimited" reason with `retryAfter`, `failingValidations`
// named); `delay` holds issue() that long, or until the request's stop signal is raised (counted
// in stopsSeen()). orders() counts the calls of issue(). Set the knobs before the CA is shared
// with other threads.
class FakeIssuer : public ports::Issuer {
 public:
  explicit FakeIssuer(const ports::Clock& clock) : clock_(clock) {}
  std::optional<domain::Error> refusal;
  std::optional<domain::Error> failure;
  std::optional<domain::Duration> retryAfter;
  std::vector<std::string> failingValidations;
  std::chrono::milliseconds delay{0};
  bool proveWithDns = true;
  domain::Duration validity = std::chrono::days{90};
  std::function<ports::IssuedCertificate(const std::vector<std::string>& names)> material;
  // HTTP-01 orders: called for each name while its answer is presented (what the CA would fetch).
  std::function<void(const ports::Http01Challenge&)> whileHttp01Presented;
  // Orders to these directories fail with the error given (a CA down, refusing, ...).
  std::map<std::string, domain::Error> refusalsByDirectory;
  // What each order asked, in order.
  struct Asked {
    std::string directory_url, profile, replaces_certificate_pem, preferred_chain;
  };
  std::vector<Asked> requests;
  std::vector<Asked> asked() {
    std::lock_guard lock(requestsMutex_);
    return requests;
  }
  // readDirectory: what each directory URL's meta says; a URL not here cannot be reached.
  std::map<std::string, domain::CaDirectoryMeta> directories;
  // renewalInfo: what the CA answers (unset: it offers none), and what it was asked for
  // (the directory URL of each question).
  std::optional<domain::Result<ports::RenewalInfo>> renewalWindow;
  std::vector<std::string> renewalInfoAsked;
  std::function<void()> whileAskingRenewalInfo;  // runs while the CA "answers"

  domain::Result<ports::RenewalInfo> renewalInfo(const domain::AcmeAccount& account,
                                                 const std::string&) override {
    if (whileAskingRenewalInfo) whileAskingRenewalInfo();
    std::lock_guard lock(requestsMutex_);
    renewalInfoAsked.push_back(account.directory_url);
    if (!renewalWindow) {
      return domain::makeError(domain::ErrorCode::failed_precondition,
                               "the CA offers no renewal information");
    }
    return *renewalWindow;
  }

  domain::Result<domain::CaDirectoryMeta> readDirectory(const std::string& directoryUrl,
                                                        const std::string&) override {
    const auto it = directories.find(directoryUrl);
    if (it == directories.end()) {
      return domain::makeError(domain::ErrorCode::unavailable,
                               "the CA at " + directoryUrl + " cannot be reached");
    }
    return it->second;
  }

  domain::Result<ports::AccountState> registerAccount(const domain::AcmeAccount&) override {
    if (refusal) return *refusal;
    return ports::AccountState{"valid", "https://fake-ca.test/account/1", ""};
  }
  domain::Result<ports::IssuedCertificate> issue(const ports::IssueRequest& request,
                                                 ports::DnsProvider& dns) override {
    const int order = ++orders_;
    if (request.names.empty()) {
      return domain::makeError(domain::ErrorCode::invalid_argument, "no names to order");
    }
    {
      std::lock_guard lock(requestsMutex_);
      requests.push_back({request.account.directory_url, request.profile,
                          request.replaces_certificate_pem, request.preferred_chain});
    }
    if (refusal) return *refusal;
    if (const auto it = refusalsByDirectory.find(request.account.directory_url);
        it != refusalsByDirectory.end()) {
      if (request.report != nullptr && it->second.reason == "rateLimited") {
        request.report->rate_limited = true;
        request.report->retry_after = retryAfter;
        request.report->rate_limit_detail = it->second.message;
      }
      return it->second;
    }
    if (auto s = notStopped(request); !s) return s.error();
    if (request.report != nullptr) ++request.report->orders_created;
    if (request.challenge == domain::ChallengeType::http_01) {
      if (request.http01 == nullptr) {
        return domain::makeError(domain::ErrorCode::failed_precondition, "no HTTP-01 responder");
      }
      for (std::size_t i = 0; i < request.names.size(); ++i) {
        const auto& name = request.names[i];
        const std::string token = "tok" + std::to_string(order) + "-" + std::to_string(i);
        const ports::Http01Challenge c{name, token, token + ".thumbprint"};
        if (auto s = request.http01->present(c); !s) {
          (void)request.http01->cleanup(c);
          return s.error();
        }
        if (whileHttp01Presented) whileHttp01Presented(c);
        (void)request.http01->cleanup(c);
      }
    } else if (proveWithDns) {
      for (const auto& name : request.names) {
        if (auto s = notStopped(request); !s) return s.error();
        const std::string base = name.starts_with("*.") ? name.substr(2) : name;
        const ports::TxtRecord record{"", "_acme-challenge." + base + ".",
                                      "token-" + std::to_string(order), 60};
        if (auto s = dns.present(record); !s) return s.error();
        auto visible = dns.waitVisible(record, std::chrono::seconds{5});
        (void)dns.cleanup(record);
        if (!visible) return visible.error();
      }
    }
    if (auto stopped = wait(request); !stopped) return stopped.error();
    if (failure) {
      if (request.report != nullptr) {
        request.report->failed_validations = failingValidations;
        if (failure->reason == "rateLimited") {
          request.report->rate_limited = true;
          request.report->retry_after = retryAfter;
          request.report->rate_limit_detail = failure->message;
        }
      }
      return *failure;
    }
    ports::IssuedCertificate c;
    if (material) {
      c = material(request.names);
    } else {
      std::string names;
      for (const auto& name : request.names)
        names += " " + name;
      c.certificate_pem =
          "-----BEGIN CERTIFICATE-----\nfake" + names + "\n-----END CERTIFICATE-----\n";
      c.private_key_pem = "-----BEGIN PRIVATE KEY-----\nfake\n-----END PRIVATE KEY-----\n";
      c.not_before = clock_.now();
      c.expires_at = clock_.now() + validity;
    }
    c.serial_number = std::to_string(order);
    return c;
  }
  domain::Status revoke(const domain::AcmeAccount&, const std::string&) override {
    if (refusal) return *refusal;
    return {};
  }
  domain::Result<ports::AccountState> rolloverKey(const domain::AcmeAccount& account) override {
    if (refusal) return *refusal;
    if (account.account_url.empty()) {
      return domain::makeError(domain::ErrorCode::failed_precondition,
                               "the account is not registered");
    }
    return ports::AccountState{"valid", account.account_url,
                               "fake-rolled-key-" + std::to_string(++rollovers_)};
  }
  int orders() const { return orders_.load(); }
  int stopsSeen() const { return stopsSeen_.load(); }

 private:
  domain::Status notStopped(const ports::IssueRequest& request) {
    if (request.stop == nullptr || !request.stop->requested()) return {};
    ++stopsSeen_;
    return domain::makeError(domain::ErrorCode::unavailable, "stopped before the order finished",
                             "stopped");
  }
  // Holds issue() for `delay`, checking the stop signal every 5 ms (and once when there is none).
  domain::Status wait(const ports::IssueRequest& request) {
    const auto until = std::chrono::steady_clock::now() + delay;
    for (;;) {
      if (auto s = notStopped(request); !s) return s;
      if (std::chrono::steady_clock::now() >= until) return {};
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
  }

  const ports::Clock& clock_;
  std::atomic<int> orders_{0};
  std::mutex requestsMutex_;
  std::atomic<int> stopsSeen_{0};
  std::atomic<int> rollovers_{0};
};

// Licence keys that verify are the ones the test names, each with the licence it stands for;
// any other key is refused as a bad signature would be.
class KnownLicenseKeys : public ports::LicenseVerifier {
 public:
  std::map<std::string, domain::License> keys;
  domain::Result<domain::License> verify(std::string_view key) const override {
    const auto it = keys.find(std::string(key));
    if (it == keys.end()) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "invalid licence key: bad signature");
    }
    return it->second;
  }
};

// The time zones the test names exist; no others.
class FakeTimeZones : public ports::TimeZones {
 public:
  explicit FakeTimeZones(std::set<std::string, std::less<>> names = {"UTC", "Europe/Zurich"})
      : names_(std::move(names)) {}
  bool exists(std::string_view name) const override { return names_.count(name) == 1; }

 private:
  std::set<std::string, std::less<>> names_;
};

// "Encrypted" bundles that only label what they hold (and never include the password).
class FakeKeyBundles : public ports::KeyBundles {
 public:
  domain::Result<std::string> encryptedPrivateKeyPem(std::string_view keyPem,
                                                     std::string_view) const override {
    return "-----BEGIN ENCRYPTED PRIVATE KEY-----\nfake(" + std::to_string(keyPem.size()) +
           ")\n-----END ENCRYPTED PRIVATE KEY-----\n";
  }
  domain::Result<std::string> pkcs12(std::string_view keyPem, std::string_view certificatePem,
                                     std::string_view chainPem, std::string_view,
                                     const std::string& friendlyName) const override {
    return "fake-pkcs12:" + friendlyName + ":" +
           std::to_string(keyPem.size() + certificatePem.size() + chainPem.size());
  }
};

}  // namespace certsteward::testing

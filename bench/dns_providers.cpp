// DNS-01 through PowerDNS (its HTTP API, a real pdns_server) and bind9 (RFC 2136 + TSIG, a real
// named), each with a Pebble of its own that validates through that server: orders of two names
// (bN.example.test and *.bN.example.test) issued in process by AcmeIssuer with the server's DNS
// provider, timed per certificate and, through a timing decorator, from "records written" (the end
// of the last present()) to "visible on every authoritative server" (the end of the last
// waitVisible()); and in the same run, lego (`--dns pdns`, `--dns rfc2136`) on the same servers,
// one `lego run` per certificate. CertSteward runs on the server's default settings
// (app::Config). Prints the figures and the ratios; asserts nothing.
// Usage: certsteward_dns_providers_bench [orders=100] [lego_orders=20] [lego_default_orders=0]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <certsteward/adapters/acme/acme_issuer.hpp>
#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/dns/powerdns_dns_provider.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/app/config.hpp>
#include "support/bind9_server.hpp"
#include "support/pdns_server.hpp"
#include "support/pebble_server.hpp"

using namespace certsteward;
using Clock = std::chrono::steady_clock;

namespace {

double secondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Forwards to `inner` with every record placed in example.test (as the service's zone routing
// does) and notes when the last present() and the last waitVisible() since reset() returned. Not
// thread-safe: one order at a time (AcmeIssuer calls it from the issuing thread only).
class TimedDnsProvider : public ports::DnsProvider {
 public:
  explicit TimedDnsProvider(ports::DnsProvider& inner) : inner_(inner) {}

  domain::Status present(const ports::TxtRecord& r) override {
    auto s = inner_.present(inZone(r));
    presented_ = Clock::now();
    return s;
  }
  domain::Status cleanup(const ports::TxtRecord& r) override { return inner_.cleanup(inZone(r)); }
  domain::Status waitVisible(const ports::TxtRecord& r, domain::Duration timeout) override {
    auto s = inner_.waitVisible(inZone(r), timeout);
    visible_ = Clock::now();
    return s;
  }

  void reset() { presented_ = visible_ = Clock::time_point{}; }
  // Seconds from the end of the last present() to the end of the last waitVisible(); -1 when
  // either did not happen since reset().
  double propagationSeconds() const {
    if (presented_ == Clock::time_point{} || visible_ == Clock::time_point{}) return -1;
    return secondsBetween(presented_, visible_);
  }

 private:
  static ports::TxtRecord inZone(ports::TxtRecord r) {
    r.zone = "example.test.";
    return r;
  }
  ports::DnsProvider& inner_;
  Clock::time_point presented_{};
  Clock::time_point visible_{};
};

struct Sample {
  double wall = 0;         // seconds for the certificate, start to chain
  double propagation = 0;  // seconds from records written to visible; -1: not measured (lego)
};

struct Summary {
  double mean = 0, median = 0, p95 = 0;
};

Summary summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values)
    sum += v;
  s.mean = sum / static_cast<double>(values.size());
  const std::size_t n = values.size();
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.p95 = values[std::min(n - 1, (n * 95 + 99) / 100 - 1)];
  return s;
}

std::vector<double> walls(const std::vector<Sample>& samples) {
  std::vector<double> out;
  for (const auto& s : samples)
    out.push_back(s.wall);
  return out;
}

std::vector<double> propagations(const std::vector<Sample>& samples) {
  std::vector<double> out;
  for (const auto& s : samples)
    if (s.propagation >= 0) out.push_back(s.propagation);
  return out;
}

adapters::acme::AcmeSettings acmeDefaults(const app::Config& c, const testing::PebbleServer& ca) {
  adapters::acme::AcmeSettings s;
  s.ca_bundle = ca.caFile();
  s.request_timeout = c.acme_request_timeout;
  s.order_timeout = c.acme_order_timeout;
  s.dns_timeout = c.dns_propagation_timeout;
  s.poll_interval = c.acme_poll_interval;
  return s;
}

// Whether `dns` takes a record and shows it (the server's zone and credential in place), tried
// for at most 5 s.
bool takesUpdates(ports::DnsProvider& dns) {
  const ports::TxtRecord probe{"example.test.", "_ready.example.test.", "ready", 60};
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (dns.present(probe).ok() && dns.waitVisible(probe, std::chrono::seconds{1}).ok()) {
      return dns.cleanup(probe).ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  return false;
}

// `orders` certificates for <prefix>N.example.test and *.<prefix>N.example.test (after one
// untimed order), issued in process through `provider`; empty on failure (the reason on stderr).
std::vector<Sample> viaCertsteward(const app::Config& config, const testing::PebbleServer& ca,
                                   ports::DnsProvider& provider, const std::string& prefix,
                                   int orders) {
  adapters::crypto::AesGcmSecretBox box(std::string(40, 's'));
  adapters::acme::AcmeIssuer issuer(box, acmeDefaults(config, ca));
  domain::AcmeAccount account;
  account.id = "0123456789abcdef01234567";
  account.directory_url = ca.directoryUrl();
  account.email = "bench@example.test";
  auto state = issuer.registerAccount(account);
  if (!state) {
    std::cerr << "account registration failed: " << state.error().message << "\n";
    return {};
  }
  account.account_url = state->account_url;
  account.key_sealed = state->key_sealed;
  account.status = state->status;
  TimedDnsProvider timed(provider);
  std::vector<Sample> samples;
  for (int i = -1; i < orders; ++i) {  // -1: the untimed first order
    const std::string name =
        prefix + (i < 0 ? std::string("warm") : std::to_string(i)) + ".example.test";
    timed.reset();
    const auto start = Clock::now();
    auto issued = issuer.issue({account, {name, "*." + name}, domain::KeyType::ecdsa_p256}, timed);
    const auto end = Clock::now();
    if (!issued) {
      std::cerr << "certsteward: " << name << " failed: " << issued.error().message << "\n";
      return {};
    }
    if (i >= 0) samples.push_back({secondsBetween(start, end), timed.propagationSeconds()});
  }
  return samples;
}

// `orders` certificates for <prefix>N.example.test and *.<prefix>N.example.test, one `lego run`
// each with its account in `dir` (registered by one untimed run first when `dir` holds none yet),
// with `environment` ("NAME=value ...") choosing and configuring the DNS provider; empty on
// failure (lego's output on stderr).
std::vector<Sample> viaLego(const testing::PebbleServer& ca, const std::filesystem::path& dir,
                            const std::string& resolver, const std::string& provider,
                            const std::string& environment, const std::string& prefix, int orders) {
  std::vector<Sample> samples;
  const bool registered = std::filesystem::exists(dir / "accounts");
  for (int i = registered ? 0 : -1; i < orders; ++i) {
    const std::string name =
        prefix + (i < 0 ? std::string("warm") : std::to_string(i)) + ".example.test";
    const std::string command =
        "LEGO_CA_CERTIFICATES=" + ca.caFile() + " " + environment + " /usr/bin/lego --server " +
        ca.directoryUrl() + " --email bench@example.test --accept-tos --dns " + provider +
        " --dns.resolvers " + resolver + " --dns.disable-cp --domains " + name + " --domains '*." +
        name + "' --path " + dir.string() + " run > " + (dir / "lego.log").string() + " 2>&1";
    const auto start = Clock::now();
    const int rc = std::system(command.c_str());
    const auto end = Clock::now();
    if (rc != 0) {
      std::ifstream log(dir / "lego.log");
      std::cerr << "lego: " << name << " failed:\n" << log.rdbuf() << "\n";
      return {};
    }
    if (i >= 0) samples.push_back({secondsBetween(start, end), -1});
  }
  return samples;
}

void printRow(const char* server, const char* client, const std::vector<Sample>& samples) {
  const auto wall = summarize(walls(samples));
  const auto propagation = propagations(samples);
  std::printf("%-8s %-22s %6zu  %8.3f %8.3f %8.3f", server, client, samples.size(), wall.mean,
              wall.median, wall.p95);
  if (propagation.empty()) {
    std::printf("  %8s %8s %8s  %6s\n", "-", "-", "-", "-");
    return;
  }
  const auto p = summarize(propagation);
  std::printf("  %8.1f %8.1f %8.1f  %5.1f%%\n", p.mean * 1000, p.median * 1000, p.p95 * 1000,
              100 * p.mean / wall.mean);
}

void printRatio(const char* server, const char* against, const std::vector<Sample>& ours,
                const std::vector<Sample>& lego) {
  if (ours.empty() || lego.empty()) return;
  const auto a = summarize(walls(ours));
  const auto b = summarize(walls(lego));
  std::printf(
      "%-8s ratio certsteward / %s per certificate: %.4f (means), %.4f (medians); goal: at most "
      "0.5\n",
      server, against, a.mean / b.mean, a.median / b.median);
}

// The lego variables that make its pace comparable with ours: polling every second (the shortest
// it accepts, whole seconds), CertSteward's propagation timeout, and for RFC 2136 no pause
// between the two names (its default sequence interval is 60 s).
std::string legoTuned(const char* prefix, const app::Config& c, bool sequential) {
  const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(c.dns_propagation_timeout);
  std::string env = std::string(prefix) + "_POLLING_INTERVAL=1 " + prefix +
                    "_PROPAGATION_TIMEOUT=" + std::to_string(timeout.count());
  if (sequential) env += std::string(" ") + prefix + "_SEQUENCE_INTERVAL=0";
  return env;
}

struct ServerResult {
  std::vector<Sample> ours, lego, legoDefaults;
};

// Runs both clients against a Pebble that validates through `dnsAddress`; false on failure.
bool measure(const app::Config& config, const std::string& dnsAddress, ports::DnsProvider& provider,
             const std::string& legoProvider, const std::string& legoEnvironment,
             const std::string& legoTunedEnvironment, const std::string& label, int orders,
             int legoOrders, int legoDefaultOrders, ServerResult& out) {
  testing::PebbleOptions options;
  options.dns_server = dnsAddress;
  testing::PebbleServer ca(options);
  if (!ca.available()) {
    std::cerr << ca.reason() << "\n";
    return false;
  }
  if (!takesUpdates(provider)) {
    std::cerr << label << " took no update within 5 s\n";
    return false;
  }
  std::fprintf(stderr, "%s: %d orders through certsteward...\n", label.c_str(), orders);
  out.ours = viaCertsteward(config, ca, provider, label + "-b", orders);
  if (out.ours.empty()) return false;
  // lego's --path: its account, registered once, and its certificates.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("certsteward-dns-bench-lego-" + std::to_string(::getpid()) + "-" + label);
  std::filesystem::create_directories(dir);
  bool ok = true;
  if (legoOrders > 0) {
    std::fprintf(stderr, "%s: %d orders through lego...\n", label.c_str(), legoOrders);
    out.lego = viaLego(ca, dir, dnsAddress, legoProvider,
                       legoEnvironment + " " + legoTunedEnvironment, label + "-l", legoOrders);
    ok = !out.lego.empty();
  }
  if (ok && legoDefaultOrders > 0) {
    std::fprintf(stderr, "%s: %d orders through lego on its defaults...\n", label.c_str(),
                 legoDefaultOrders);
    out.legoDefaults = viaLego(ca, dir, dnsAddress, legoProvider, legoEnvironment, label + "-d",
                               legoDefaultOrders);
    ok = !out.legoDefaults.empty();
  }
  std::filesystem::remove_all(dir);
  return ok;
}

int countArgument(int argc, char** argv, int index, int fallback) {
  if (argc <= index) return fallback;
  const int v = std::atoi(argv[index]);
  return v >= 0 ? v : fallback;
}

int run(int orders, int legoOrders, int legoDefaultOrders) {
  const app::Config config;  // the server's defaults
  const auto ms = [](domain::Duration d) { return static_cast<long long>(d.count()); };

  ServerResult pdnsResult;
  {
    testing::PowerDnsServer pdns;
    if (!pdns.available()) {
      std::cerr << pdns.reason() << "\n";
      return 1;
    }
    adapters::dns::PowerDnsSettings s;
    s.api_url = pdns.apiUrl();
    s.api_key = testing::PowerDnsServer::kApiKey;
    s.check_servers = {pdns.address()};
    s.timeout = config.dns_timeout;
    s.poll_interval = config.dns_poll_interval;
    adapters::dns::PowerDnsProvider provider(s);
    const std::string env = "PDNS_API_URL=" + pdns.apiUrl() +
                            " PDNS_API_KEY=" + testing::PowerDnsServer::kApiKey +
                            " PDNS_SERVER_NAME=localhost";
    if (!measure(config, pdns.address(), provider, "pdns", env, legoTuned("PDNS", config, false),
                 "pdns", orders, legoOrders, legoDefaultOrders, pdnsResult)) {
      return 1;
    }
  }

  ServerResult bindResult;
  {
    testing::Bind9Server bind9;
    if (!bind9.available()) {
      std::cerr << bind9.reason() << "\n";
      return 1;
    }
    adapters::dns::Rfc2136Settings s;
    s.server = bind9.address();
    s.key_name = testing::Bind9Server::kKey256;
    s.secret = testing::Bind9Server::kSecret256;
    s.timeout = config.dns_timeout;
    s.poll_interval = config.dns_poll_interval;
    adapters::dns::Rfc2136DnsProvider provider(s);
    const std::string env = "RFC2136_NAMESERVER=" + bind9.address() +
                            " RFC2136_TSIG_KEY=" + testing::Bind9Server::kKey256 +
                            ". RFC2136_TSIG_SECRET=" + testing::Bind9Server::kSecret256 +
                            " RFC2136_TSIG_ALGORITHM=hmac-sha256.";
    if (!measure(config, bind9.address(), provider, "rfc2136", env,
                 legoTuned("RFC2136", config, true), "bind9", orders, legoOrders, legoDefaultOrders,
                 bindResult)) {
      return 1;
    }
  }

  std::printf(
      "DNS-01, two names per order (N.example.test and *.N.example.test), P-256 keys; Pebble 2.4 "
      "on loopback (PEBBLE_VA_NOSLEEP=1), one per DNS server, validating through that server\n");
  std::printf(
      "certsteward: AcmeIssuer in process, server defaults: dns.poll_interval %lld ms, "
      "dns.timeout %lld ms, dns.propagation_timeout %lld ms, acme.poll_interval %lld ms "
      "(PowerDnsProvider with check_servers = the pdns server; Rfc2136DnsProvider)\n",
      ms(config.dns_poll_interval), ms(config.dns_timeout), ms(config.dns_propagation_timeout),
      ms(config.acme_poll_interval));
  std::printf(
      "lego: one `lego run` per certificate (process start included), account reused, "
      "--dns.disable-cp --dns.resolvers <server>; tuned: %s / %s%s\n",
      legoTuned("PDNS", config, false).c_str(), legoTuned("RFC2136", config, true).c_str(),
      legoDefaultOrders > 0 ? "; defaults: none of these set" : "");
  std::printf("propagation: end of the last present() to the end of the last waitVisible()\n\n");
  std::printf("%-8s %-22s %6s  %26s  %26s  %6s\n", "server", "client", "orders",
              "s per certificate", "propagation, ms", "share");
  std::printf("%-8s %-22s %6s  %8s %8s %8s  %8s %8s %8s  %6s\n", "", "", "", "mean", "median",
              "p95", "mean", "median", "p95", "");
  for (const auto& [server, result] :
       {std::pair<const char*, const ServerResult*>{"pdns", &pdnsResult},
        std::pair<const char*, const ServerResult*>{"bind9", &bindResult}}) {
    printRow(server, "certsteward", result->ours);
    if (!result->lego.empty()) printRow(server, "lego (tuned)", result->lego);
    if (!result->legoDefaults.empty()) printRow(server, "lego (defaults)", result->legoDefaults);
  }
  std::printf("\n");
  for (const auto& [server, result] :
       {std::pair<const char*, const ServerResult*>{"pdns", &pdnsResult},
        std::pair<const char*, const ServerResult*>{"bind9", &bindResult}}) {
    printRatio(server, "lego (tuned)", result->ours, result->lego);
    printRatio(server, "lego (defaults)", result->ours, result->legoDefaults);
  }
  if (legoOrders < orders) {
    std::printf("(lego ran %d orders per server against certsteward's %d, to keep the run short)\n",
                legoOrders, orders);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int orders = countArgument(argc, argv, 1, 100);
  const int legoOrders = countArgument(argc, argv, 2, 20);
  const int legoDefaultOrders = countArgument(argc, argv, 3, 0);
  // Caught here so that the servers started above are stopped on every path.
  try {
    return run(std::max(orders, 1), legoOrders, legoDefaultOrders);
  } catch (const std::exception& e) {
    std::cerr << "DNS providers benchmark failed: " << e.what() << "\n";
    return 1;
  }
}

// CNAME delegation against the real bind9 and Pebble: ResolverDnsLookup finds the CNAMEs that
// delegate `_acme-challenge` (one hop, two hops, none, a name that does not exist, a resolver
// that refuses or stays silent), and Pebble issues certificates whose challenges are delegated
// into "delegated.test", the project's only zone: for app.example.test (its own zone holds the
// CNAME) and for www.foreign.test and its wildcard (a zone the project does not manage at all,
// two hops). The records are written by RFC 2136 + TSIG through the service's zone routing.
#include <doctest/doctest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>

#include <certsteward/adapters/acme/acme_crypto.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/dns/dns_provider_factory.hpp>
#include <certsteward/adapters/dns/resolver_dns_lookup.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/caa_check.hpp>
#include <certsteward/services/zone_routed_dns.hpp>
#include "integration/acme_fixture.hpp"
#include "support/chain_verify.hpp"

using namespace certsteward;
using adapters::dns::DnsLookupSettings;
using adapters::dns::ResolverDnsLookup;
using testing::Bind9Server;
using testing::readyBind9;
using namespace testing::acme_world;
using namespace std::chrono_literals;

namespace {

// A UDP port on 127.0.0.1 that takes queries and never answers: a resolver that is down.
class SilentUdpPort {
 public:
  SilentUdpPort() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~SilentUdpPort() { ::close(fd_); }
  SilentUdpPort(const SilentUdpPort&) = delete;
  SilentUdpPort& operator=(const SilentUdpPort&) = delete;
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

ResolverDnsLookup lookupThrough(std::vector<std::string> resolvers) {
  return ResolverDnsLookup(DnsLookupSettings{std::move(resolvers), 500ms});
}

}  // namespace

TEST_CASE("dns lookup: a zone's authoritative servers from its NS records and their addresses") {
  auto lookup = lookupThrough({readyBind9().address()});
  const auto port = static_cast<std::uint16_t>(readyBind9().port());
  auto found = lookup.authoritativeServers("example.test.", port);
  REQUIRE_MESSAGE(found.ok(), (found.ok() ? "" : found.error().message));
  CHECK(*found == std::vector<std::string>{readyBind9().address()});
  CHECK(*lookup.authoritativeServers("Delegated.Test", port) ==
        std::vector<std::string>{readyBind9().address()});
  auto none = lookup.authoritativeServers("nothing.example.org", port);  // NXDOMAIN: no NS
  REQUIRE(none.ok());
  CHECK(none->empty());
  SilentUdpPort silent;
  auto dead = lookupThrough({silent.address()}).authoritativeServers("example.test", port);
  REQUIRE_FALSE(dead.ok());
  CHECK(dead.error().code == domain::ErrorCode::unavailable);
  CHECK(lookup.authoritativeServers("bad zone!", port).error().code ==
        domain::ErrorCode::invalid_argument);

  // A record's visibility is asked of the servers found; the outbound policy still applies to
  // them, and a refusal is said at once instead of waited out.
  int lookups = 0;
  const auto find = [&](const std::string& zone) {
    ++lookups;
    return lookup.authoritativeServers(zone, port);
  };
  auto checker =
      adapters::dns::Rfc2136DnsProvider::visibilityChecker({}, 500ms, 50ms, nullptr, find);
  const ports::TxtRecord soa{"example.test.", "example.test.", "no such value", 60};
  CHECK_FALSE(checker->waitVisible(soa, 200ms).ok());
  CHECK_FALSE(checker->waitVisible(soa, 200ms).ok());
  CHECK(lookups == 1);  // found once per zone
  auto refusing = adapters::dns::Rfc2136DnsProvider::visibilityChecker(
      {}, 500ms, 50ms, std::make_shared<adapters::common::Outbound>(domain::OutboundPolicy()),
      find);
  const auto started = std::chrono::steady_clock::now();
  auto refused = refusing->waitVisible(soa, 10s);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == adapters::common::kOutboundRefused);
  CHECK(std::chrono::steady_clock::now() - started < 5s);

  // rfc2136 asks the primary it writes to; with check_name_servers also every server the zone's
  // NS records name, so one that does not answer (a lagging secondary) holds the record back.
  SilentUdpPort secondary;
  auto withSecondary = tsig();
  withSecondary.find_authoritative = [&](const std::string& zone) {
    auto servers = lookup.authoritativeServers(zone, port);
    if (servers) servers->push_back(secondary.address());
    return servers;
  };
  const ports::TxtRecord record{"example.test.", "_acme-challenge.nsprobe.example.test.",
                                "ns-probe-value", 60};
  adapters::dns::Rfc2136DnsProvider primaryOnly(withSecondary);
  REQUIRE(primaryOnly.present(record).ok());
  CHECK(primaryOnly.waitVisible(record, 2s).ok());
  withSecondary.check_name_servers = true;
  adapters::dns::Rfc2136DnsProvider everyServer(withSecondary);
  auto lagging = everyServer.waitVisible(record, 600ms);
  REQUIRE(primaryOnly.cleanup(record).ok());
  REQUIRE_FALSE(lagging.ok());
  CHECK(lagging.error().message.find(secondary.address()) != std::string::npos);
}

TEST_CASE("dns lookup: CNAMEs as a resolver answers them") {
  auto lookup = lookupThrough({readyBind9().address()});
  auto one = lookup.cnameOf("_acme-challenge.app.example.test.");
  REQUIRE_MESSAGE(one.ok(), (one.ok() ? "" : one.error().message));
  CHECK(*one == std::optional<std::string>("app.delegated.test"));
  auto first = lookup.cnameOf("_ACME-Challenge.www.foreign.test");
  REQUIRE(first.ok());
  CHECK(*first == std::optional<std::string>("hop.foreign.test"));
  auto none = lookup.cnameOf("www.foreign.test");  // an A record, no CNAME
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  auto missing = lookup.cnameOf("_acme-challenge.nothing.delegated.test");  // NXDOMAIN
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());

  // A name outside bind9's zones: its own root says NXDOMAIN.
  auto outside = lookup.cnameOf("www.example.org");
  REQUIRE(outside.ok());
  CHECK_FALSE(outside->has_value());

  // A silent resolver hands over to the next; alone, it is unavailable within its timeout.
  SilentUdpPort silent;
  auto failover = lookupThrough({silent.address(), readyBind9().address()});
  auto answered = failover.cnameOf("_acme-challenge.app.example.test");
  REQUIRE_MESSAGE(answered.ok(), (answered.ok() ? "" : answered.error().message));
  CHECK(*answered == std::optional<std::string>("app.delegated.test"));
  auto alone = lookupThrough({silent.address()});
  const auto started = std::chrono::steady_clock::now();
  auto dead = alone.cnameOf("_acme-challenge.app.example.test");
  REQUIRE_FALSE(dead.ok());
  CHECK(dead.error().code == domain::ErrorCode::unavailable);
  CHECK(std::chrono::steady_clock::now() - started < 5s);

  CHECK(lookup.cnameOf("bad name!").error().code == domain::ErrorCode::invalid_argument);
}

TEST_CASE("caa: records as bind9 serves them, climbing the tree and through a CNAME") {
  auto lookup = lookupThrough({readyBind9().address()});
  auto records = lookup.caaOf("caa.foreign.test");
  REQUIRE_MESSAGE(records.ok(), (records.ok() ? "" : records.error().message));
  REQUIRE(records->size() == 2);
  const auto issue = std::find_if(records->begin(), records->end(),
                                  [](const domain::CaaRecord& r) { return r.tag == "issue"; });
  REQUIRE(issue != records->end());
  CHECK(issue->value == "ca.test");
  CHECK(issue->flags == 0);
  auto aliased = lookup.caaOf("alias.foreign.test");  // the CNAME's target's records
  REQUIRE(aliased.ok());
  CHECK(aliased->size() == 2);
  CHECK(lookup.caaOf("www.foreign.test")->empty());
  CHECK(lookup.caaOf("nothing.foreign.test")->empty());  // NXDOMAIN
  auto critical = lookup.caaOf("critical.foreign.test");
  REQUIRE(critical.ok());
  REQUIRE(critical->size() == 1);
  CHECK(critical->front().flags == 128);
  CHECK(critical->front().tag == "tbs");

  const std::vector<std::string> ca = {"ca.test"};
  const struct {
    const char* name;
    std::string account;
    const char* method;
    bool allowed;
    const char* says;  // in the reason when refused
  } rows[] = {
      {"caa.foreign.test", "", "dns-01", true, ""},
      {"deep.below.caa.foreign.test", "", "dns-01", true, ""},  // climbs to caa.foreign.test
      {"www.foreign.test", "", "http-01", true, ""},            // no CAA up the tree
      {"deny.foreign.test", "", "dns-01", false, "other-ca.test"},
      {"x.deny.foreign.test", "", "dns-01", false, "CAA at deny.foreign.test"},
      {"alias.foreign.test", "", "dns-01", true, ""},
      {"account.foreign.test", "https://ca.test/acct/1", "dns-01", true, ""},
      {"account.foreign.test", "https://ca.test/acct/2", "dns-01", false, "another ACME account"},
      {"wild.foreign.test", "", "dns-01", true, ""},
      {"*.wild.foreign.test", "", "dns-01", false, "issuewild"},
      {"critical.foreign.test", "", "dns-01", false, "critical"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    CAPTURE(row.account);
    const auto check = services::checkCaa(lookup, {row.name}, ca, row.account, row.method);
    CHECK(check.allowed == row.allowed);
    CHECK(check.notes.empty());
    if (!row.allowed) CHECK(check.reason.find(row.says) != std::string::npos);
  }
  // A resolver that does not answer leaves it to the CA, with a note.
  SilentUdpPort silent;
  auto down = lookupThrough({silent.address()});
  const auto started = std::chrono::steady_clock::now();
  const auto unknown =
      services::checkCaa(down, {"deny.foreign.test", "caa.foreign.test"}, ca, "", "dns-01");
  CHECK(unknown.allowed);
  REQUIRE(unknown.notes.size() == 1);  // the second name is not asked of silent resolvers
  CHECK(std::chrono::steady_clock::now() - started < 2s);
  CHECK(unknown.notes[0].find("left to the CA") != std::string::npos);
}

TEST_CASE("acme: certificates issued with their challenges delegated by CNAME to another zone") {
  auto& ca = pebble();
  adapters::memory::MemoryStore store;
  adapters::crypto::SystemClock clock;
  domain::DnsCredential credential;
  credential.id = "cred-1";
  credential.project_id = "p1";
  credential.name = "bind9";
  credential.provider = "rfc2136";
  credential.settings = {{"server", readyBind9().address()}, {"key_name", Bind9Server::kKey256}};
  credential.secret_sealed = *box().seal(Bind9Server::kSecret256);
  REQUIRE(store.dnsCredentials().create(credential).ok());
  domain::Zone zone;  // the only zone: neither example.test nor foreign.test is the project's
  zone.id = "zone-1";
  zone.project_id = "p1";
  zone.domain = Bind9Server::kDelegatedZone;
  zone.dns_credential_id = credential.id;
  REQUIRE(store.zones().create(zone).ok());
  adapters::dns::DefaultDnsProviderFactory providers{
      adapters::dns::DnsTimeouts{2000ms, 50ms, 1000ms}};
  adapters::runtime::ThreadBackground background;
  auto lookup = lookupThrough({readyBind9().address()});
  domain::StopSignal stop;

  adapters::acme::AcmeIssuer issuer(box(), settings(ca));
  auto a = account(ca, "delegation@example.test");
  auto state = issuer.registerAccount(a);
  REQUIRE_MESSAGE(state.ok(), (state.ok() ? "" : state.error().message));
  a.account_url = state->account_url;
  a.key_sealed = state->key_sealed;
  a.status = state->status;

  for (const auto& names : std::vector<std::vector<std::string>>{
           {"app.example.test"}, {"www.foreign.test", "*.www.foreign.test"}}) {
    CAPTURE(names.front());
    services::ZoneRoutedDns dns(
        {store.zones(), store.dnsCredentials(), providers, box(), clock, background, &lookup}, "p1",
        stop);
    auto issued = issuer.issue({a, names, domain::KeyType::ecdsa_p256}, dns);
    REQUIRE_MESSAGE(issued.ok(),
                    (issued.ok() ? std::string() : issued.error().message + "\n" + ca.log()));
    CHECK(testing::chainVerifies(issued->certificate_pem, issued->chain_pem,
                                 ca.managementGet("/roots/0")));
    auto facts = adapters::acme::inspectCertificate(issued->certificate_pem);
    REQUIRE(facts.ok());
    CHECK(facts->dns_names.size() == names.size());
    REQUIRE(dns.routes().size() == 1);
    const auto& route = dns.routes().begin()->second;
    CHECK(route.zone.domain == "delegated.test");
    CHECK(route.record_name.ends_with(".delegated.test"));
    CHECK(dns.failedCleanups().empty());
  }
}

TEST_CASE("challenge routes: a CNAME loop in the real DNS is refused before anything is written") {
  adapters::memory::MemoryStore store;
  domain::Zone zone;
  zone.id = "zone-1";
  zone.project_id = "p1";
  zone.domain = "foreign.test";
  zone.dns_credential_id = "cred-1";
  REQUIRE(store.zones().create(zone).ok());
  auto lookup = lookupThrough({readyBind9().address()});
  services::ChallengeRouter router({store.zones(), &lookup});
  auto route = router.routeName("p1", "loop.foreign.test");
  REQUIRE_FALSE(route.ok());
  CHECK(route.error().code == domain::ErrorCode::failed_precondition);
  CHECK(route.error().message.find("form a loop") != std::string::npos);
}

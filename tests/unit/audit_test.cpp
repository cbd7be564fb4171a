// The audit chain: the checksum formula, and verification finding exactly the altered entries.
#include <doctest/doctest.h>

#include <vector>

#include "adapters/crypto/openssl_mac.hpp"
#include "domain/audit.hpp"

using namespace certsteward;
using namespace certsteward::domain;

namespace {

const Timestamp kT = Timestamp{std::chrono::days{20000}};

std::vector<AuditEntry> chain(const AuditSealer& sealer, int n) {
  std::vector<AuditEntry> entries;
  std::string previous;
  for (int i = 0; i < n; ++i) {
    AuditEntry e;
    e.id = makeObjectId(kT, {9, 9, 9, 9, 9}, static_cast<std::uint32_t>(i));
    e.timestamp = kT + std::chrono::seconds{i};
    e.action = "certificate.create";
    e.resource_type = "certificate";
    e.checksum = sealer.checksum(previous, e);
    previous = e.checksum;
    entries.push_back(e);
  }
  return entries;
}

}  // namespace

TEST_CASE("audit: the checksum is HMAC-SHA256 over prev | id | timestamp | action | type") {
  adapters::crypto::OpenSslMac mac("key");
  AuditSealer sealer(mac);
  AuditEntry e;
  e.id = "0123456789abcdef01234567";
  e.timestamp = kT;
  e.action = "user.login";
  e.resource_type = "user";
  const std::string expected =
      toHex(mac.sign("prev0123456789abcdef01234567" + formatTimestamp(kT) + "user.loginuser"));
  CHECK(sealer.checksum("prev", e) == expected);
  CHECK(expected.size() == 64);
  // RFC 4231 test case 2 pins the MAC itself.
  adapters::crypto::OpenSslMac jefe("Jefe");
  CHECK(toHex(jefe.sign("what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("audit: an intact chain verifies and pages resume where they stopped") {
  adapters::crypto::OpenSslMac mac("k");
  AuditSealer sealer(mac);
  const auto entries = chain(sealer, 5);
  const auto all = verifyAuditPage(sealer, "", entries, std::nullopt);
  CHECK(all.verified == 5);
  CHECK(all.intact);
  CHECK(all.breaks.empty());
  CHECK_FALSE(all.next_since);

  const std::span<const AuditEntry> first(entries.data(), 2);
  const auto p1 = verifyAuditPage(sealer, "", first, entries[2].timestamp);
  CHECK(p1.intact);
  CHECK(p1.next_since == entries[2].timestamp);
  const std::span<const AuditEntry> rest(entries.data() + 2, 3);
  const auto p2 = verifyAuditPage(sealer, entries[1].checksum, rest, std::nullopt);
  CHECK(p2.intact);
  CHECK(p2.verified == 3);
}

TEST_CASE("audit: each kind of tampering gives exactly one break at the altered entry") {
  adapters::crypto::OpenSslMac mac("k");
  AuditSealer sealer(mac);
  struct Row {
    const char* name;
    void (*tamper)(AuditEntry&);
  };
  const Row rows[] = {
      {"action changed", [](AuditEntry& e) { e.action = "certificate.delete"; }},
      {"resource type changed", [](AuditEntry& e) { e.resource_type = "user"; }},
      {"timestamp moved", [](AuditEntry& e) { e.timestamp += std::chrono::milliseconds{1}; }},
      {"checksum replaced", [](AuditEntry& e) { e.checksum = std::string(64, '0'); }},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    auto entries = chain(sealer, 5);
    const std::string original = entries[2].checksum;
    row.tamper(entries[2]);
    const auto result = verifyAuditPage(sealer, "", entries, std::nullopt);
    CHECK_FALSE(result.intact);
    CHECK(result.verified == 5);
    // A replaced checksum also fails the next entry's link: it chained on the original.
    const std::size_t expectedBreaks = entries[2].checksum == original ? 1 : 2;
    REQUIRE(result.breaks.size() == expectedBreaks);
    CHECK(result.breaks[0].entry_id == entries[2].id);
    CHECK(result.breaks[0].actual_checksum == entries[2].checksum);
    CHECK(result.breaks[0].expected_checksum != entries[2].checksum);
  }
}

TEST_CASE("audit: a deleted entry breaks the chain at its successor") {
  adapters::crypto::OpenSslMac mac("k");
  AuditSealer sealer(mac);
  auto entries = chain(sealer, 4);
  entries.erase(entries.begin() + 1);
  const auto result = verifyAuditPage(sealer, "", entries, std::nullopt);
  REQUIRE(result.breaks.size() == 1);
  CHECK(result.breaks[0].entry_id == entries[1].id);
}

TEST_CASE("audit: a chain verified under another key is not intact") {
  adapters::crypto::OpenSslMac mac("old key");
  adapters::crypto::OpenSslMac other("new key");
  const auto entries = chain(AuditSealer(mac), 3);
  const auto result = verifyAuditPage(AuditSealer(other), "", entries, std::nullopt);
  CHECK_FALSE(result.intact);
  CHECK(result.breaks.size() == 3);
}

TEST_CASE("audit: chain timestamps strictly increase") {
  CHECK(chainTimestamp(kT, kT + std::chrono::milliseconds{5}) == kT + std::chrono::milliseconds{5});
  CHECK(chainTimestamp(kT, kT) == kT + std::chrono::milliseconds{1});
  CHECK(chainTimestamp(kT, kT - std::chrono::seconds{3}) == kT + std::chrono::milliseconds{1});
}

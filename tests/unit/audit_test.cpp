// The audit chain: the checksum formula, and verification finding exactly the altered entries;
// and the catalog of audit actions, checked against the services that record them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/domain/audit_catalog.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/services/audit_sealer.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

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
    e.resource_id = "c" + std::to_string(i);
    e.project_id = "p1";
    e.actor_user_id = "u1";
    e.actor_username = "alice";
    e.ip = "10.0.0.1";
    e.request_id = "r" + std::to_string(i);
    e.details = "example.test";
    e.sequence = i + 1;
    sealer.seal(previous, e);
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

TEST_CASE("audit: a change to any field the checksum leaves out is an entry-MAC break") {
  adapters::crypto::OpenSslMac mac("k");
  AuditSealer sealer(mac);
  struct Row {
    const char* name;
    void (*tamper)(AuditEntry&);
  };
  const Row rows[] = {
      {"actor id", [](AuditEntry& e) { e.actor_user_id = "u2"; }},
      {"actor name", [](AuditEntry& e) { e.actor_username = "mallory"; }},
      {"resource id", [](AuditEntry& e) { e.resource_id = "c999"; }},
      {"project", [](AuditEntry& e) { e.project_id = "p2"; }},
      {"project removed", [](AuditEntry& e) { e.project_id.reset(); }},
      {"project empty", [](AuditEntry& e) { e.project_id = ""; }},
      {"address", [](AuditEntry& e) { e.ip = "203.0.113.9"; }},
      {"request id", [](AuditEntry& e) { e.request_id = "other"; }},
      {"details", [](AuditEntry& e) { e.details = "evil.test"; }},
      {"sequence", [](AuditEntry& e) { e.sequence = 99; }},
      {"mac removed", [](AuditEntry& e) { e.mac.clear(); }},
      // Moving text from one field to its neighbour keeps the concatenation: the lengths differ.
      {"shifted between fields",
       [](AuditEntry& e) {
         e.ip += e.request_id.substr(0, 1);
         e.request_id = e.request_id.substr(1);
       }},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    auto entries = chain(sealer, 5);
    row.tamper(entries[3]);
    const auto result = verifyAuditPage(sealer, "", entries, std::nullopt);
    CHECK_FALSE(result.intact);
    REQUIRE(result.breaks.size() == 1);  // the checksum chain itself still holds
    CHECK(result.breaks[0].entry_id == entries[3].id);
    CHECK(result.breaks[0].reason == "entry_mac");
  }
  // And the untouched chain is intact under both MACs.
  CHECK(verifyAuditPage(sealer, "", chain(sealer, 5), std::nullopt).intact);
}

TEST_CASE("audit: a chain checked against a recorded head finds a cut or rewritten tail") {
  adapters::crypto::OpenSslMac mac("k");
  AuditSealer sealer(mac);
  const auto entries = chain(sealer, 6);
  const AuditHead head{6, entries[5].checksum};
  struct Row {
    const char* name;
    std::optional<AuditEntry> atHead;
    bool intact;
    const char* reason;
  };
  AuditEntry rewritten = entries[5];
  rewritten.checksum = std::string(64, 'a');
  const Row rows[] = {
      {"the head is there", entries[5], true, ""},
      {"the tail was cut before it", std::nullopt, false, "head_missing"},
      {"another entry holds its place", rewritten, false, "head_mismatch"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    // The remaining entries verify on their own: only the head shows the cut.
    const std::size_t kept = row.atHead ? 6 : 4;
    auto result = verifyAuditPage(sealer, "", std::span<const AuditEntry>(entries.data(), kept),
                                  std::nullopt);
    CHECK(result.intact);
    checkAuditHead(head, row.atHead, result);
    CHECK(result.intact == row.intact);
    if (!row.intact) {
      REQUIRE(result.breaks.size() == 1);
      CHECK(result.breaks[0].reason == row.reason);
    }
  }
}

// The audit actions' catalog (domain/audit_catalog.hpp) against the services that record them:
// each action listed is recorded somewhere, and each action named where the services record one
// is listed, with its resource type. (The service tests' audit log refuses an unlisted action at
// run time too: testing/catalog_checked_audit_log.hpp.)
namespace {

// `text` without its comments (// to the end of the line, and /* */), string literals kept.
std::string withoutComments(const std::string& text) {
  std::string out;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (inString) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (ch == '"')
        inString = false;
    } else if (ch == '"') {
      inString = true;
      out += ch;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
      out += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string sourceOf(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return withoutComments(buffer.str());
}

std::string servicesSource() {
  std::string all;
  for (const auto& file : std::filesystem::directory_iterator(
           std::filesystem::path(CERTSTEWARD_SOURCE_DIR) / "services")) {
    all += sourceOf(file.path());
  }
  return all;
}

// The string literals of `statement`, in order.
std::vector<std::string> literalsOf(const std::string& statement) {
  std::vector<std::string> out;
  for (auto open = statement.find('"'); open != std::string::npos;) {
    const auto close = statement.find('"', open + 1);
    if (close == std::string::npos) break;
    out.push_back(statement.substr(open + 1, close - open - 1));
    open = statement.find('"', close + 1);
  }
  return out;
}

bool looksLikeAction(const std::string& literal) {
  return literal.find('.') != std::string::npos && literal.front() != '.' &&
         literal.back() != '.' &&
         literal.find_first_not_of("abcdefghijklmnopqrstuvwxyz_.") == std::string::npos;
}

// The kinds the configuration resources are wired with ({"zone", ...}): each records
// "<kind>.create", "<kind>.update" and "<kind>.delete" on resource type "<kind>".
std::set<std::string> configurationKinds() {
  const auto source = sourceOf(std::filesystem::path(CERTSTEWARD_SOURCE_DIR) / "services" /
                               "configuration_services.cpp");
  std::set<std::string> kinds;
  for (auto at = source.find("{\""); at != std::string::npos; at = source.find("{\"", at + 2)) {
    const auto end = source.find('"', at + 2);
    kinds.insert(source.substr(at + 2, end - at - 2));
  }
  return kinds;
}

}  // namespace

TEST_CASE("audit catalog: every listed action is recorded by a service, and the reverse") {
  const std::string source = servicesSource();
  REQUIRE(source.size() > 10000);
  const auto kinds = configurationKinds();
  CHECK(kinds.size() == 7);
  // Each configuration kind is listed with its three actions on its own resource type.
  for (const auto& kind : kinds) {
    for (const char* verb : {".create", ".update", ".delete"}) {
      CAPTURE(kind + verb);
      const auto* listed = findAuditAction(kind + verb);
      REQUIRE(listed != nullptr);
      CHECK(listed->resource_type == kind);
    }
  }
  for (const auto& a : auditActions()) {
    CAPTURE(a.action);
    if (source.find('"' + std::string(a.action) + '"') != std::string::npos) continue;
    // Not named in the code: then one that a configuration kind's ResourceService records.
    const auto dot = a.action.find('.');
    const std::string kind(a.action.substr(0, dot));
    const auto verb = a.action.substr(dot + 1);
    CHECK((verb == "create" || verb == "update" || verb == "delete"));
    CHECK(kinds.count(kind) == 1);
  }
  // The reverse, statement by statement (a call may span lines): where an action is handed to the
  // audit (AuditService::record, or a helper that takes one), the quoted "a.b" names are listed;
  // in a record( call, the literal after the action is its resource type.
  int seen = 0;
  for (std::size_t start = 0; start < source.size();) {
    auto end = source.find_first_of(";{}", start);
    if (end == std::string::npos) end = source.size();
    const std::string statement = source.substr(start, end - start);
    start = end + 1;
    const bool records = statement.find("record(") != std::string::npos;
    bool hands = records;
    for (const char* call : {"transition(", "enqueue(", "changeUser(", "kAction", ".action ="}) {
      hands = hands || statement.find(call) != std::string::npos;
    }
    if (!hands) continue;
    const auto literals = literalsOf(statement);
    for (std::size_t i = 0; i < literals.size(); ++i) {
      if (!looksLikeAction(literals[i])) continue;
      CAPTURE(statement);
      const auto* listed = findAuditAction(literals[i]);
      CHECK(listed != nullptr);
      ++seen;
      if (listed != nullptr && records && i + 1 < literals.size()) {
        CHECK(listed->resource_type == literals[i + 1]);
      }
    }
  }
  CHECK(seen > 40);
}

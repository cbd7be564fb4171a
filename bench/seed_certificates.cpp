// Seeds a SQLite store with certificates in one project, for the HTTP benchmark.
// Usage: certsteward_seed_certificates <sqlite file> <project id> <count>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>

using namespace certsteward;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fputs("usage: certsteward_seed_certificates <sqlite file> <project id> <count>\n", stderr);
    return 2;
  }
  auto store = adapters::sqlite::SqliteStore::open({argv[1]});
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 1;
  }
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);
  const long count = std::atol(argv[3]);
  const auto now = clock.now();
  for (long i = 0; i < count; ++i) {
    domain::Certificate c;
    c.id = ids.next();
    c.project_id = argv[2];
    c.common_name = "host" + std::to_string(i) + ".example.com";
    c.sans = {c.common_name};
    c.status = domain::CertificateStatus::active;
    c.created_at = now;
    c.updated_at = now;
    c.expires_at = now + std::chrono::hours{24 * (31 + i % 60)};
    c.next_renewal_at = domain::renewalTime(*c.expires_at, c.renewal_threshold_days);
    c.serial_number = std::to_string(1000000 + i);
    if (!(*store)->certificates().create(c)) return 1;
  }
  return 0;
}

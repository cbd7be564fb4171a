// Transactions in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_transactions.hpp>

namespace certsteward::adapters::postgres {

domain::Status PgTransactions::run(const std::vector<std::string>& guards,
                                   const std::function<domain::Status()>& body) {
  // The services' guards in a space of their own: none can be one the repositories take
  // ("certsteward:...").
  std::vector<std::string> locks;
  locks.reserve(guards.size());
  for (const auto& guard : guards)
    locks.push_back("guard:" + guard);
  return db_.transact(locks, body);
}

}  // namespace certsteward::adapters::postgres

// PgTransactions: one READ COMMITTED transaction (PgDatabase::transact) whose guards are
// transaction-scoped advisory locks: two transactions naming a guard run one after the other,
// in every instance on the database, and each reads what the one before committed. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/transactions.hpp>

namespace certsteward::adapters::postgres {

class PgTransactions : public ports::Transactions {
 public:
  explicit PgTransactions(PgDatabase& db) : db_(db) {}
  using ports::Transactions::run;
  domain::Status run(const std::vector<std::string>& guards,
                     const std::function<domain::Status()>& body) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres

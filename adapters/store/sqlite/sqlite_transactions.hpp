// SqliteTransactions: one BEGIN IMMEDIATE transaction (Database::transact). SQLite's write lock
// serialises it against every other writer, in this process and in others, so guards need
// nothing more. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/transactions.hpp>

namespace certsteward::adapters::sqlite {

class SqliteTransactions : public ports::Transactions {
 public:
  explicit SqliteTransactions(Database& db) : db_(db) {}
  using ports::Transactions::run;
  domain::Status run(const std::vector<std::string>& guards,
                     const std::function<domain::Status()>& body) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite

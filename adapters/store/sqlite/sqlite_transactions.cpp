// Transactions in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_transactions.hpp>

namespace certsteward::adapters::sqlite {

domain::Status SqliteTransactions::run(const std::vector<std::string>& /*guards*/,
                                       const std::function<domain::Status()>& body) {
  return db_.transact(body);
}

}  // namespace certsteward::adapters::sqlite

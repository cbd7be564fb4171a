// MongoTransactions: multi-document transactions on the replica set (MongoDatabase::transact);
// each guard is a document that makes two transactions naming it conflict. Thread-safe.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/transactions.hpp>

namespace certsteward::adapters::mongo {

class MongoTransactions : public ports::Transactions {
 public:
  explicit MongoTransactions(MongoDatabase& db) : db_(db) {}
  using ports::Transactions::run;
  domain::Status run(const std::vector<std::string>& guards,
                     const std::function<domain::Status()>& body) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo

// Transactions in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_transactions.hpp>

namespace certsteward::adapters::mongo {

domain::Status MongoTransactions::run(const std::vector<std::string>& guards,
                                      const std::function<domain::Status()>& body) {
  return db_.transact(guards, body);
}

}  // namespace certsteward::adapters::mongo

// MemoryTransactions: the memory store's transactions. They are serialised on one mutex; every
// memory repository records how to undo each write it makes inside one (undoInTransaction), and
// a transaction whose body fails replays those undo steps newest first. Other threads can see a
// transaction's writes before it ends (no isolation): the memory store is for tests and
// embedders, and its guarantee is all-or-nothing. Thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include <certsteward/ports/transactions.hpp>

namespace certsteward::adapters::memory {

// Called by a repository right after a write, with the step that reverts it (the step takes the
// repository's lock itself). Does nothing outside a transaction.
void undoInTransaction(std::function<void()> undo);

class MemoryTransactions : public ports::Transactions {
 public:
  using ports::Transactions::run;
  domain::Status run(const std::vector<std::string>& guards,
                     const std::function<domain::Status()>& body) override;

 private:
  std::mutex mu_;
};

}  // namespace certsteward::adapters::memory

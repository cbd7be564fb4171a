// All-or-nothing transactions over the memory repositories.
#include <certsteward/adapters/store/memory/memory_transactions.hpp>

namespace certsteward::adapters::memory {
namespace {

// The undo steps of the transaction the calling thread is inside, if any.
thread_local std::vector<std::function<void()>>* tJournal = nullptr;

}  // namespace

void undoInTransaction(std::function<void()> undo) {
  if (tJournal != nullptr) tJournal->push_back(std::move(undo));
}

domain::Status MemoryTransactions::run(const std::vector<std::string>& /*guards*/,
                                       const std::function<domain::Status()>& body) {
  if (tJournal != nullptr) return body();  // nested: joins the outer transaction
  std::lock_guard lock(mu_);
  std::vector<std::function<void()>> journal;
  tJournal = &journal;
  domain::Status result;
  try {
    result = body();
  } catch (...) {
    tJournal = nullptr;
    for (auto it = journal.rbegin(); it != journal.rend(); ++it)
      (*it)();
    throw;
  }
  tJournal = nullptr;
  if (!result) {
    for (auto it = journal.rbegin(); it != journal.rend(); ++it)
      (*it)();
  }
  return result;
}

}  // namespace certsteward::adapters::memory

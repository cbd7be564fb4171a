// What the SQLite repositories of projects, users and memberships share.
#include <certsteward/adapters/store/sqlite/sqlite_documents.hpp>

namespace certsteward::adapters::sqlite {

domain::Error notFound(const char* what) {
  return domain::makeError(domain::ErrorCode::not_found, std::string(what) + " not found");
}

domain::Error conflict(const char* message) {
  return domain::makeError(domain::ErrorCode::conflict, message);
}

}  // namespace certsteward::adapters::sqlite

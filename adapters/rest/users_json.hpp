// A user as the API shows it (GET /users, /auth/me). Password hashes and TOTP seeds never appear.
#pragma once

#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/domain/user.hpp>

namespace certsteward::adapters::rest {

json::object toJson(const domain::User& user);

}  // namespace certsteward::adapters::rest

// Configuration resources shown by more than their own routes (the ACME account, also by
// its key rollover).
#pragma once

#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/domain/acme_account.hpp>

namespace certsteward::adapters::rest {

// An ACME account as GET .../acme-accounts/<id> shows it (keys never, EAB only as configured).
json::object acmeAccountJson(const domain::AcmeAccount& account);

}  // namespace certsteward::adapters::rest

// The audit log contract suite against the team's own store factory.
#include "team_store_factory.hpp"

#include <certsteward/testing/contract/audit_log_contract.hpp>

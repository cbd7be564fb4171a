// The audit_log contract suite (testing/contract) against this project's store adapters.
#include "contract/store_factories.hpp"

#include <certsteward/testing/contract/audit_log_contract.hpp>

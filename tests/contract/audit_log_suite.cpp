// The audit_log contract suite (testing/contract) against this project's store adapters.
#include "contract/store_factories.hpp"
#include "testing/contract/audit_log_contract.hpp"

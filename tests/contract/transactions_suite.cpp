// The transactions contract suite (testing/contract) against this project's store adapters.
#include "contract/store_factories.hpp"

#include <certsteward/testing/contract/transactions_contract.hpp>

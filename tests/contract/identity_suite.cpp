// The identity contract suite (testing/contract) against this project's store adapters.
#include "contract/store_factories.hpp"

#include <certsteward/testing/contract/identity_contract.hpp>

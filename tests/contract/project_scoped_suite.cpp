// The project_scoped contract suite (testing/contract) against this project's store adapters.
#include "contract/store_factories.hpp"

#include <certsteward/testing/contract/project_scoped_contract.hpp>

// The certificate_repository contract suite (testing/contract) against this project's store
// adapters.
#include "contract/store_factories.hpp"

#include <certsteward/testing/contract/certificate_repository_contract.hpp>

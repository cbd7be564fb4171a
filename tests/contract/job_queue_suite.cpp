// The job_queue contract suite (testing/contract) against this project's store adapters.
#include "contract/store_factories.hpp"

#include <certsteward/testing/contract/job_queue_contract.hpp>

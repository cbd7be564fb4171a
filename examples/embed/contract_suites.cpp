// The store contract suites shipped in certsteward::testing, run against the team's own store
// factory. One suite header per file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "team_store_factory.hpp"

#include <certsteward/testing/contract/records_contract.hpp>

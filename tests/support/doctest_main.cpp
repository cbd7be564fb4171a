// The runner of the test executables (see doctest_runner.hpp).
#define DOCTEST_CONFIG_IMPLEMENT
#include "support/doctest_runner.hpp"

int main(int argc, char** argv) { return certsteward::testing::runDoctest(argc, argv); }

// The runner of the MongoDB test executables: they need a server, named by
// CERTSTEWARD_TEST_MONGODB_URI. Without one every case reports "skipped" (exit code 77, which
// CTest is told means skipped) with the reason; listing always works (test discovery).
// CERTSTEWARD_MONGO_NEEDS_REAL (set per executable) marks suites that the wire-compatible
// stand-in cannot honour: they skip when CERTSTEWARD_TEST_MONGODB_STANDIN=1.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/doctest_runner.hpp"

int main(int argc, char** argv) {
  if (!certsteward::testing::isListing(argc, argv)) {
    if (std::getenv("CERTSTEWARD_TEST_MONGODB_URI") == nullptr) {
      std::puts(
          "SKIPPED: needs a MongoDB server: set CERTSTEWARD_TEST_MONGODB_URI "
          "(scripts/test starts the wire-compatible stand-in)");
      return 77;
    }
#if defined(CERTSTEWARD_MONGO_NEEDS_REAL)
    const char* standin = std::getenv("CERTSTEWARD_TEST_MONGODB_STANDIN");
    if (standin != nullptr && std::strcmp(standin, "1") == 0) {
      std::puts("SKIPPED: needs a real MongoDB (>= 6.0): " CERTSTEWARD_MONGO_NEEDS_REAL);
      return 77;
    }
#endif
  }
  return certsteward::testing::runDoctest(argc, argv);
}

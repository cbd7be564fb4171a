// Runs doctest and fails when a run selected no test case at all: a CTest entry whose filter
// matches nothing (a renamed case, a name CTest split) must fail, not pass having run nothing.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace certsteward::testing {

inline std::atomic<int> gCasesStarted{0};

struct CaseCounter : doctest::IReporter {
  explicit CaseCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++gCasesStarted; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

inline bool isListing(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--list", 6) == 0 || std::strncmp(argv[i], "-l", 2) == 0 ||
        std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      return true;
    }
  }
  return false;
}

inline int runDoctest(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (status == 0 && !isListing(argc, argv) && gCasesStarted == 0) {
    std::fputs("FAIL: no test case matched the selection\n", stderr);
    return 1;
  }
  return status;
}

}  // namespace certsteward::testing

REGISTER_LISTENER("certsteward-case-counter", 1, certsteward::testing::CaseCounter);

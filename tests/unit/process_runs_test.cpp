// Runs of a process, as a restarted instance proves its earlier run over: this run is alive, a
// reaped child's run is over, a run from before a reboot is over, one in another pid namespace
// cannot be told (left alone).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <certsteward/adapters/runtime/process_runs.hpp>

using namespace certsteward::adapters::runtime;

namespace {

std::string field(const std::string& run, int index) {
  std::size_t from = 0;
  for (int i = 0; i < index; ++i)
    from = run.find('.', from) + 1;
  return run.substr(from, run.find('.', from) - from);
}

}  // namespace

TEST_CASE("process runs: alive, over, from another boot, or not to be told") {
  const std::string self = currentProcessRun();
  CHECK_FALSE(processRunGone(self));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);
  const std::string reaped =
      field(self, 0) + "." + field(self, 1) + "." + std::to_string(child) + "." + field(self, 3);
  CHECK(processRunGone(reaped));
  // The same pid, started at another time: another process.
  CHECK(processRunGone(field(self, 0) + "." + field(self, 1) + "." + field(self, 2) + ".1"));
  CHECK(processRunGone("00000000." + field(self, 1) + "." + field(self, 2) + "." + field(self, 3)));
  CHECK_FALSE(
      processRunGone(field(self, 0) + ".1." + std::to_string(child) + "." + field(self, 3)));
  for (const char* malformed : {"", "0badb007", "a.b.c", "a.b.x1.2", "a.b..2"})
    CHECK_FALSE(processRunGone(malformed));
}

// Runs of this server's process, named so that a later run on the same machine can prove an
// earlier one is over (services/abandoned_locks.hpp): "<kernel boot>.<pid namespace>.
// <pid>.<start time>" — the kernel's boot id (its first 8 hex digits), the pid namespace's inode,
// the process id and its start time in clock ticks since boot (/proc/<pid>/stat).
#pragma once

#include <string>
#include <string_view>

namespace certsteward::adapters::runtime {

// This process's run.
std::string currentProcessRun();

// Whether the run named `run` is certainly over: the machine has booted since (another kernel
// boot id), or — in this pid namespace — its pid is gone or now names another process. False when
// it cannot be told (another pid namespace: another container) or `run` is malformed.
bool processRunGone(std::string_view run);

}  // namespace certsteward::adapters::runtime

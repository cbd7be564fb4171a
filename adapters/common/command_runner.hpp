// Running an operator-allowed executable (a DNS hook, a reload command): posix_spawn of an
// absolute path with exactly the given arguments and environment (nothing of the server's
// environment or descriptors leaks in), stdin from /dev/null, in its own process group, killed
// with that group when it runs past the timeout. Secrets go in the environment, never argv.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::common {

struct Command {
  std::string path;               // absolute; run as is, no shell
  std::vector<std::string> args;  // after argv[0]
  std::vector<std::string> env;   // NAME=value; PATH is added when absent
  std::chrono::milliseconds timeout{60000};
  std::string secret;  // masked in the output a failure reports
  std::string what;    // how errors name it, e.g. "the DNS hook /usr/local/bin/dns present"
};

// The last non-empty line of a command's `output`, `secret` masked, control characters blanked,
// at most 300 characters: what an error message quotes.
std::string lastOutputLine(std::string output, const std::string& secret = {});

// Ok when it exits 0. Otherwise: failed_precondition when it cannot be started, deadline_exceeded
// when it ran past the timeout (stopped), unavailable when it exited non-zero or was killed — the
// message names the command, how it ended and its last output line (secret masked).
domain::Status runCommand(const Command& command);

}  // namespace certsteward::adapters::common

// Process runs from /proc: the kernel boot id, the pid namespace and a process's start time.
#include <certsteward/adapters/runtime/process_runs.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace certsteward::adapters::runtime {
namespace {

std::string kernelBoot() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  std::string hex;
  for (const char c : id) {
    if (c != '-') hex += c;
    if (hex.size() == 8) break;
  }
  return hex.empty() ? "0" : hex;
}

std::string pidNamespace() {
  struct stat st {};
  if (::stat("/proc/self/ns/pid", &st) != 0) return "0";
  return std::to_string(static_cast<unsigned long long>(st.st_ino));
}

// Field 22 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces); "" when
// there is no such process.
std::string startTime(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  const auto close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return field;
  }
  return {};
}

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const auto dot = std::min(text.find('.', from), text.size());
    out.emplace_back(text.substr(from, dot - from));
    from = dot + 1;
  }
  return out;
}

}  // namespace

std::string currentProcessRun() {
  const std::string pid = std::to_string(::getpid());
  return kernelBoot() + "." + pidNamespace() + "." + pid + "." + startTime(pid);
}

bool processRunGone(std::string_view run) {
  const auto parts = split(run);
  if (parts.size() != 4 || parts[2].empty() || parts[3].empty()) return false;
  for (const char c : parts[2]) {
    if (c < '0' || c > '9') return false;
  }
  if (parts[0] != kernelBoot()) return true;     // the machine has booted since
  if (parts[1] != pidNamespace()) return false;  // another container: cannot tell
  return startTime(parts[2]) != parts[3];        // gone, or the pid names another process
}

}  // namespace certsteward::adapters::runtime

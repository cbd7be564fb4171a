// The dependency rule: domain/ and ports/ include only the standard library, domain/ and
// ports/. Any other include in the core fails this test.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Standard library headers (C++20 and the C compatibility headers).
const std::set<std::string>& standardHeaders() {
  static const std::set<std::string> headers{"algorithm",
                                             "any",
                                             "array",
                                             "atomic",
                                             "bit",
                                             "bitset",
                                             "cassert",
                                             "cctype",
                                             "cerrno",
                                             "cfloat",
                                             "charconv",
                                             "chrono",
                                             "cinttypes",
                                             "climits",
                                             "cmath",
                                             "compare",
                                             "concepts",
                                             "cstddef",
                                             "cstdint",
                                             "cstdio",
                                             "cstdlib",
                                             "cstring",
                                             "ctime",
                                             "deque",
                                             "exception",
                                             "expected",
                                             "format",
                                             "forward_list",
                                             "functional",
                                             "initializer_list",
                                             "iomanip",
                                             "ios",
                                             "iosfwd",
                                             "iostream",
                                             "istream",
                                             "iterator",
                                             "limits",
                                             "list",
                                             "map",
                                             "memory",
                                             "mutex",
                                             "new",
                                             "numeric",
                                             "optional",
                                             "ostream",
                                             "queue",
                                             "random",
                                             "ranges",
                                             "ratio",
                                             "regex",
                                             "set",
                                             "shared_mutex",
                                             "source_location",
                                             "span",
                                             "sstream",
                                             "stack",
                                             "stdexcept",
                                             "string",
                                             "string_view",
                                             "system_error",
                                             "tuple",
                                             "type_traits",
                                             "typeinfo",
                                             "unordered_map",
                                             "unordered_set",
                                             "utility",
                                             "variant",
                                             "vector"};
  return headers;
}

// Parses `#include <x>` / `#include "x"` (spaces allowed around '#'); false for other lines.
bool parseInclude(const std::string& line, char& delimiter, std::string& path) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return false;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return false;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || (line[i] != '<' && line[i] != '"')) return false;
  delimiter = line[i];
  const std::size_t close = line.find(delimiter == '<' ? '>' : '"', i + 1);
  if (close == std::string::npos) return false;
  path = line.substr(i + 1, close - i - 1);
  return true;
}

// Returns the offending include lines of one file's text.
std::vector<std::string> foreignIncludes(const std::string& text) {
  std::vector<std::string> bad;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    char delimiter = 0;
    std::string path;
    if (!parseInclude(line, delimiter, path)) continue;
    const bool core =
        delimiter == '"' && (path.starts_with("domain/") || path.starts_with("ports/"));
    const bool standard = delimiter == '<' && standardHeaders().count(path) == 1;
    if (!core && !standard) bad.push_back(line);
  }
  return bad;
}

}  // namespace

TEST_CASE("architecture: the checker flags foreign includes and accepts the core's own") {
  CHECK(foreignIncludes("#include <vector>\n#include \"domain/job.hpp\"\n").empty());
  CHECK(foreignIncludes("#include \"ports/clock.hpp\"\n  #  include <optional>\n").empty());
  CHECK(foreignIncludes("#include <boost/json.hpp>\n").size() == 1);
  CHECK(foreignIncludes("#include <openssl/evp.h>\n").size() == 1);
  CHECK(foreignIncludes("#include \"adapters/http/http_server.hpp\"\n").size() == 1);
  CHECK(foreignIncludes("#include \"app/config.hpp\"\n").size() == 1);
  CHECK(foreignIncludes("#include <sqlite3.h>\n").size() == 1);
  CHECK(foreignIncludes("#include <vector.h>\n").size() == 1);
}

TEST_CASE("architecture: domain/ and ports/ include only the standard library and the core") {
  const fs::path root = CERTSTEWARD_SOURCE_DIR;
  int files = 0;
  for (const char* layer : {"domain", "ports"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
      const auto ext = entry.path().extension();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".h") continue;
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      ++files;
      for (const auto& line : foreignIncludes(text)) {
        FAIL_CHECK(entry.path().lexically_relative(root).string() << ": " << line);
      }
    }
  }
  CHECK(files > 20);  // the scan really read the core
}

TEST_CASE("architecture: no test case name contains a semicolon (CTest would split it)") {
  const fs::path root = CERTSTEWARD_SOURCE_DIR;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    for (const std::string opener : {"TEST_CASE(\"", "TEST_CASE_TEMPLATE(\""}) {
      for (std::size_t at = text.find(opener); at != std::string::npos;
           at = text.find(opener, at + 1)) {
        const auto open = at + opener.size() - 1;
        const auto close = text.find('"', open + 1);
        if (close == std::string::npos) break;
        const std::string name = text.substr(open + 1, close - open - 1);
        CHECK_MESSAGE(name.find(';') == std::string::npos,
                      entry.path().filename().string() << ": " << name);
      }
    }
  }
  CHECK(files > 10);
}

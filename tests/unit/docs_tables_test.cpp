// docs/architecture.md mirrors the state machine tables of the code: every row rendered here
// must appear there verbatim. On failure the expected rows are printed, ready to paste.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/job.hpp>

using namespace certsteward::domain;

namespace {

template <class Row>
std::string renderRow(const Row& row) {
  std::string out = "| ";
  out += nameOf(row.from);
  out += " | ";
  out += nameOf(row.event);
  out += " | ";
  out += row.guard_text.empty() ? std::string_view("—") : row.guard_text;
  out += " | ";
  out += nameOf(row.to);
  out += " | ";
  out += row.effect_text;
  out += " | ";
  out += row.raises ? nameOf(*row.raises) : std::string_view("—");
  out += " |";
  return out;
}

std::string architectureDoc() {
  std::ifstream in(std::string(CERTSTEWARD_SOURCE_DIR) + "/docs/architecture.md");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

template <class Table>
void checkDocumented(const Table& table) {
  const std::string doc = architectureDoc();
  REQUIRE_FALSE(doc.empty());
  std::string expected;
  bool allPresent = true;
  for (const auto& row : table) {
    const std::string line = renderRow(row);
    expected += line + "\n";
    const bool present = doc.find(line + "\n") != std::string::npos;
    CHECK_MESSAGE(present, "missing from docs/architecture.md: " << line);
    allPresent = allPresent && present;
  }
  if (!allPresent) MESSAGE("expected rows:\n" << expected);
}

}  // namespace

TEST_CASE("docs: the job transition table is documented row by row") {
  checkDocumented(jobTransitions());
}

TEST_CASE("docs: the certificate transition table is documented row by row") {
  checkDocumented(certificateTransitions());
}

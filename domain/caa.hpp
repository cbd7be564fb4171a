// CAA (RFC 8659, with the accounturi and validationmethods parameters of RFC 8657): whether the
// DNS lets a CA issue for a name. The records that count are the first non-empty CAA set found
// climbing from the name towards the root; a wildcard name is judged by `issuewild` when that set
// has any, else by `issue`. A set without issue records allows every CA; a critical record of a
// tag this code does not know forbids every CA.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace certsteward::domain {

struct CaaRecord {
  int flags = 0;  // 128: critical
  std::string tag;
  std::string value;
  friend bool operator==(const CaaRecord&, const CaaRecord&) = default;
};

// The first non-empty CAA set climbing from a name: where it was found, and its records.
struct CaaFinding {
  std::string at;  // empty with no records: no CAA anywhere up the tree
  std::vector<CaaRecord> records;
};

// The names asked, in order, for `name` ("*.a.example.com" climbs from "a.example.com"): the
// name, then each parent down to its last label.
std::vector<std::string> caaClimb(std::string_view name);

// An issue or issuewild value: "<issuer domain>; key=value; ..." (the issuer may be empty: ";"
// forbids every CA). nullopt when malformed.
struct CaaIssueValue {
  std::string issuer;
  std::map<std::string, std::string> parameters;
};
std::optional<CaaIssueValue> parseCaaIssueValue(std::string_view value);

struct CaaVerdict {
  bool allowed = true;
  std::string reason;  // why not, naming the record and where it is
};

// Whether `finding` lets a CA known in CAA as one of `identities` issue for `name` through the
// account `accountUri` proving control by `method` ("dns-01", "http-01").
CaaVerdict judgeCaa(std::string_view name, const CaaFinding& finding,
                    const std::vector<std::string>& identities, std::string_view accountUri,
                    std::string_view method);

}  // namespace certsteward::domain

// CAA as RFC 8659 and RFC 8657 say.
#include <certsteward/domain/caa.hpp>

#include <algorithm>
#include <cctype>

namespace certsteward::domain {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

bool isKnownTag(const std::string& tag) {
  return tag == "issue" || tag == "issuewild" || tag == "iodef" || tag == "issuemail" ||
         tag == "contactemail" || tag == "contactphone";
}

std::string shown(const CaaRecord& r) {
  return std::to_string(r.flags) + " " + r.tag + " \"" + r.value + "\"";
}

}  // namespace

std::vector<std::string> caaClimb(std::string_view name) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  std::vector<std::string> out;
  while (!name.empty()) {
    out.emplace_back(name);
    const auto dot = name.find('.');
    if (dot == std::string_view::npos) break;
    name.remove_prefix(dot + 1);
  }
  return out;
}

std::optional<CaaIssueValue> parseCaaIssueValue(std::string_view value) {
  CaaIssueValue out;
  const auto semicolon = value.find(';');
  out.issuer = lower(trim(value.substr(0, semicolon)));
  for (char c : out.issuer) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-')) return std::nullopt;
  }
  if (semicolon == std::string_view::npos) return out;
  std::string_view rest = value.substr(semicolon + 1);
  while (!trim(rest).empty()) {
    const auto next = rest.find(';');
    const std::string_view part = trim(rest.substr(0, next));
    const auto eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    out.parameters[lower(trim(part.substr(0, eq)))] = std::string(trim(part.substr(eq + 1)));
    if (next == std::string_view::npos) break;
    rest.remove_prefix(next + 1);
  }
  return out;
}

CaaVerdict judgeCaa(std::string_view name, const CaaFinding& finding,
                    const std::vector<std::string>& identities, std::string_view accountUri,
                    std::string_view method) {
  if (finding.records.empty()) return {};
  const std::string where = "CAA at " + finding.at;
  for (const auto& r : finding.records) {
    if ((r.flags & 128) != 0 && !isKnownTag(lower(r.tag))) {
      return {false, where + " has a critical record of an unknown tag (" + shown(r) +
                         "): no CA may issue (RFC 8659 4.1)"};
    }
  }
  const bool wildcard = name.starts_with("*.");
  const auto tagged = [&](const char* tag) {
    std::vector<CaaRecord> out;
    for (const auto& r : finding.records)
      if (lower(r.tag) == tag) out.push_back(r);
    return out;
  };
  std::vector<CaaRecord> relevant = wildcard ? tagged("issuewild") : std::vector<CaaRecord>();
  if (relevant.empty()) relevant = tagged("issue");
  if (relevant.empty()) return {};  // no issue records: every CA may issue
  std::vector<std::string> refusals;
  for (const auto& r : relevant) {
    const auto value = parseCaaIssueValue(r.value);
    if (!value || value->issuer.empty()) continue;  // malformed or ";": allows no CA
    const bool ours = std::any_of(identities.begin(), identities.end(), [&](const std::string& id) {
      return lower(id) == value->issuer;
    });
    if (!ours) continue;
    if (const auto uri = value->parameters.find("accounturi");
        uri != value->parameters.end() && uri->second != accountUri) {
      refusals.push_back(shown(r) + " allows another ACME account (" + uri->second + ")");
      continue;
    }
    if (const auto methods = value->parameters.find("validationmethods");
        methods != value->parameters.end()) {
      bool listed = false;
      std::string_view list = methods->second;
      while (!list.empty()) {
        const auto comma = list.find(',');
        if (trim(list.substr(0, comma)) == method) listed = true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
      if (!listed) {
        refusals.push_back(shown(r) + " allows other validation methods than " +
                           std::string(method));
        continue;
      }
    }
    return {};
  }
  if (!refusals.empty()) {
    std::string reason = where + ": ";
    for (std::size_t i = 0; i < refusals.size(); ++i)
      reason += (i == 0 ? "" : "; ") + refusals[i];
    return {false, reason};
  }
  std::string allowed;
  for (const auto& r : relevant)
    allowed += (allowed.empty() ? "" : ", ") + shown(r);
  std::string ours;
  for (const auto& id : identities)
    ours += (ours.empty() ? "" : ", ") + id;
  return {false, where + " does not allow this CA (" +
                     (ours.empty() ? std::string("it has no CAA identities") : "known as " + ours) +
                     "): " + allowed};
}

}  // namespace certsteward::domain

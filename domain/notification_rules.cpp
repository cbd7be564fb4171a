// Rule decisions: subscriptions, patterns, only_on_change, expiry thresholds; default wording.
#include <certsteward/domain/notification_rules.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace certsteward::domain {
namespace {

Error bad(const std::string& field, const std::string& why) {
  return makeError(ErrorCode::invalid_argument, field + " " + why);
}

char lowerChar(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

std::optional<long> number(const std::map<std::string, std::string>& m, const char* key) {
  const auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  long v = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [p, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

std::string valueOf(const std::map<std::string, std::string>& m, const char* key) {
  const auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

bool subscribes(const NotificationRule& rule, EventKind kind) {
  return std::find(rule.events.begin(), rule.events.end(), kind) != rule.events.end();
}

}  // namespace

Status checkRuleFields(const NotificationRule& rule) {
  const auto& p = rule.certificate_pattern;
  if (p.size() > 253 || !std::all_of(p.begin(), p.end(), [](char c) {
        const char l = lowerChar(c);
        return (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '-' ||
               l == '*' || l == '_';
      })) {
    return bad("certificate_pattern",
               "must be a DNS name pattern (letters, digits, '.', '-', '*'), at most 253 "
               "characters");
  }
  if (rule.thresholds_days.empty() || rule.thresholds_days.size() > 10) {
    return bad("thresholds_days", "must list 1 to 10 numbers of days");
  }
  for (int d : rule.thresholds_days) {
    if (d < 1 || d > 365) return bad("thresholds_days", "must be numbers of days from 1 to 365");
  }
  if (rule.mode != kRuleModeEach && rule.mode != kRuleModeDigest) {
    return makeError(ErrorCode::invalid_argument,
                     "unknown mode: '" + rule.mode.substr(0, 40) + "' (each, digest)", kMalformed);
  }
  const auto& t = rule.digest_time;
  const bool hhmm = t.size() == 5 && t[2] == ':' &&
                    std::isdigit(static_cast<unsigned char>(t[0])) &&
                    std::isdigit(static_cast<unsigned char>(t[1])) &&
                    std::isdigit(static_cast<unsigned char>(t[3])) &&
                    std::isdigit(static_cast<unsigned char>(t[4])) &&
                    (t[0] - '0') * 10 + (t[1] - '0') < 24 && (t[3] - '0') * 10 + (t[4] - '0') < 60;
  if (!hhmm) return bad("digest_time", "must be HH:MM (UTC), such as 08:00");
  return {};
}

bool matchesPattern(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return true;
  // Iterative glob with one backtrack point: linear in practice, never exponential.
  std::size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && lowerChar(pattern[p]) == lowerChar(name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

bool concerns(const NotificationRule& rule, EventKind kind) {
  if (subscribes(rule, kind)) return true;
  if (!rule.only_on_change) return false;
  const auto recovered = recoveredBy(kind);
  return std::any_of(recovered.begin(), recovered.end(),
                     [&](EventKind k) { return subscribes(rule, k); });
}

std::optional<int> crossedThreshold(const std::vector<int>& thresholdsDays, long daysLeft) {
  std::optional<int> crossed;
  for (int t : thresholdsDays) {
    if (daysLeft <= t && (!crossed || t < *crossed)) crossed = t;
  }
  return crossed;
}

RuleDecision decide(const NotificationRule& rule, const Event& event,
                    const std::optional<NotificationState>& state) {
  RuleDecision d;
  if (!rule.enabled || !concerns(rule, event.kind)) return d;
  // One failure, one message: a renewal job's death is also its certificate's cert.renewal_failed,
  // which names the certificate; a rule that selects both sends only that one.
  if (event.kind == EventKind::job_failed && subscribes(rule, EventKind::cert_renewal_failed)) {
    const auto type = valueOf(event.details, "job.type");
    if (type == "renew_certificate" || type == "msca_renew_certificate") return d;
  }
  if (!rule.certificate_pattern.empty()) {
    const auto name = valueOf(event.details, "certificate.common_name");
    if (name.empty() || !matchesPattern(rule.certificate_pattern, name)) return d;
  }
  NotificationState next = state.value_or(NotificationState{});
  next.subject = subjectOf(event);
  next.updated_at = event.at;

  if (event.kind == EventKind::cert_expiring_soon) {
    const auto days = number(event.details, "days_left");
    if (!days) return d;
    const auto crossed = crossedThreshold(rule.thresholds_days, *days);
    if (!crossed) return d;
    const auto expires = valueOf(event.details, "certificate.expires_at");
    const bool sameExpiry = state && state->expires_at == expires;
    if (sameExpiry && state->threshold_days && *state->threshold_days <= *crossed) return d;
    next.threshold_days = *crossed;
    next.expires_at = expires;
    d.send = true;
    d.remember = next;
    return d;
  }

  if (isFailure(event.kind)) {
    if (!rule.only_on_change) {
      d.send = true;
      return d;
    }
    if (state && std::find(state->failing.begin(), state->failing.end(), event.kind) !=
                     state->failing.end()) {
      return d;  // reported already; nothing new until it recovers
    }
    next.failing.push_back(event.kind);
    d.send = true;
    d.remember = next;
    return d;
  }

  // News: cert.issued, cert.renewed, distribution.succeeded.
  if (rule.only_on_change && state) {
    const auto ended = recoveredBy(event.kind);
    const auto before = next.failing.size();
    std::erase_if(next.failing, [&](EventKind k) {
      return std::find(ended.begin(), ended.end(), k) != ended.end();
    });
    if (next.failing.size() != before) {
      d.send = true;
      d.recovery = true;
      d.remember = next;
      return d;
    }
  }
  d.send = subscribes(rule, event.kind);
  return d;
}

std::map<std::string, std::string> certificateVariables(const Certificate& cert, Timestamp now) {
  std::map<std::string, std::string> v{{"certificate.id", cert.id},
                                       {"certificate.common_name", cert.common_name},
                                       {"certificate.serial_number", cert.serial_number},
                                       {"certificate.status", std::string(nameOf(cert.status))}};
  std::string names;
  for (const auto& n : cert.sans)
    names += (names.empty() ? "" : ", ") + n;
  v["certificate.names"] = names.empty() ? cert.common_name : names;
  if (cert.expires_at) {
    v["certificate.expires_at"] = formatTimestamp(*cert.expires_at);
    const auto hours =
        std::chrono::duration_cast<std::chrono::hours>(*cert.expires_at - now).count();
    v["days_left"] = std::to_string(hours >= 0 ? (hours + 12) / 24 : -((-hours + 12) / 24));
  }
  return v;
}

std::map<std::string, std::string> messageVariables(const Event& event, bool recovery) {
  auto vars = event.details;
  vars["event"] = std::string(nameOf(event.kind));
  vars["message"] = event.message;
  vars["at"] = formatTimestamp(event.at);
  vars["recovery"] = recovery ? "true" : "false";
  return vars;
}

std::string defaultSubject(const std::map<std::string, std::string>& vars, bool recovery) {
  const auto event = valueOf(vars, "event");
  std::string about = valueOf(vars, "certificate.common_name");
  if (about.empty()) about = valueOf(vars, "module.name");
  if (about.empty()) about = valueOf(vars, "job.type");
  std::string subject = "[CertSteward] ";
  if (recovery) {
    subject += "recovered: ";
  } else if (event == "cert.expiring_soon") {
    const auto days = valueOf(vars, "days_left");
    subject += "expires in " + days + " day(s): ";
  } else {
    subject += event + ": ";
  }
  subject += about.empty() ? valueOf(vars, "message").substr(0, 80) : about;
  const auto project = valueOf(vars, "project.name");
  if (!project.empty()) subject += " (" + project + ")";
  return subject;
}

std::string defaultText(const std::map<std::string, std::string>& vars, bool recovery) {
  std::string text = recovery ? "Recovered: " + valueOf(vars, "event") + "\n"
                              : "Event: " + valueOf(vars, "event") + "\n";
  text += valueOf(vars, "message") + "\n";
  for (const char* key : {"project.name", "certificate.common_name", "certificate.expires_at",
                          "days_left", "reason", "job.type", "module.name", "link"}) {
    const auto v = valueOf(vars, key);
    if (!v.empty()) text += std::string(key) + ": " + v + "\n";
  }
  text += "At: " + valueOf(vars, "at") + "\n";
  return text;
}

}  // namespace certsteward::domain

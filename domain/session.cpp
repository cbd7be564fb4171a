// Sessions from their refresh tokens.
#include <certsteward/domain/session.hpp>

#include <algorithm>
#include <map>

namespace certsteward::domain {

std::vector<SessionSummary> liveSessions(const std::vector<RefreshToken>& tokens, Timestamp now) {
  std::map<Id, SessionSummary> families;
  std::map<Id, bool> live;
  for (const auto& t : tokens) {
    auto [it, added] = families.try_emplace(t.family_id);
    auto& s = it->second;
    if (added) {
      s.family_id = t.family_id;
      s.started_at = s.last_renewed_at = t.issued_at;
    }
    s.started_at = std::min(s.started_at, t.issued_at);
    s.last_renewed_at = std::max(s.last_renewed_at, t.issued_at);
    if (!t.consumed && !t.revoked && t.expires_at > now) {
      live[t.family_id] = true;
      s.expires_at = std::max(s.expires_at, t.expires_at);
    }
  }
  std::vector<SessionSummary> out;
  for (auto& [family, s] : families) {
    if (live.contains(family)) out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const SessionSummary& a, const SessionSummary& b) {
    return a.started_at != b.started_at ? a.started_at < b.started_at : a.family_id < b.family_id;
  });
  return out;
}

}  // namespace certsteward::domain

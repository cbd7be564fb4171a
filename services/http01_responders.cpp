// Where the HTTP-01 answers of an order go.
#include <certsteward/services/http01_responders.hpp>

namespace certsteward::services {

domain::Status ServedHttp01::present(const ports::Http01Challenge& challenge) {
  const auto now = clock_.now();
  return tokens_.put(challenge.token, challenge.key_authorization, now + ttl_, now);
}

domain::Status ServedHttp01::cleanup(const ports::Http01Challenge& challenge) {
  return tokens_.remove(challenge.token);
}

domain::Status WebrootHttp01::present(const ports::Http01Challenge& challenge) {
  log_(domain::LogLevel::info, "writing the HTTP-01 file for " + challenge.name);
  return runner_.putChallengeFiles(projectId_, moduleConfigId_, challenge.token,
                                   challenge.key_authorization, log_);
}

domain::Status WebrootHttp01::cleanup(const ports::Http01Challenge& challenge) {
  auto s = runner_.removeChallengeFiles(projectId_, moduleConfigId_, challenge.token, log_);
  if (!s) log_(domain::LogLevel::warn, s.error().message);
  return s;
}

}  // namespace certsteward::services

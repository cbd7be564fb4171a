// HAProxy's runtime API.
#include <certsteward/adapters/distribution/haproxy_module.hpp>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <utility>
#include <variant>

#include <certsteward/adapters/distribution/net.hpp>
#include <certsteward/adapters/distribution/target_files.hpp>

namespace certsteward::adapters::distribution {

using ports::TargetOutcome;

namespace {

// One command on its own connection (HAProxy answers and closes); the answer.
domain::Result<std::string> ask(const ports::TargetAccess& target, const std::string& command) {
  auto socket =
      connectTo(domain::settingOf(target.settings, "runtime_address"), millis(target.timeout));
  if (!socket) return socket.error();
  if (auto sent = socket->sendAll(command); !sent) return sent.error();
  return socket->readToEnd(64 * 1024, millis(target.timeout));
}

// HAProxy's own refusal, in fixed words: the peer's text never reaches an error.
std::string refusalOf(const std::string& answer) {
  for (const auto& [known, said] : std::initializer_list<std::pair<const char*, const char*>>{
           {"Permission denied", "permission denied (the runtime API needs level admin)"},
           {"Unknown command", "an unknown command (is this HAProxy 2.2 or later?)"},
           {"Can't", "the certificate was refused (HAProxy could not load it)"},
           {"unknown", "no such certificate is loaded"}}) {
    if (answer.find(known) != std::string::npos) return said;
  }
  return "an answer the module does not know";
}

// Leaf, chain and key as one payload; HAProxy ends a payload at an empty line, so none inside.
std::string payloadOf(const domain::CertificateVersion& v) {
  std::string out;
  const std::string all = v.certificate_pem + "\n" + v.chain_pem + "\n" + v.private_key_pem;
  std::size_t from = 0;
  while (from < all.size()) {
    auto nl = all.find('\n', from);
    if (nl == std::string::npos) nl = all.size();
    std::string line = all.substr(from, nl - from);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out += line + "\n";
    from = nl + 1;
  }
  return out;
}

std::string normalSerial(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ':'), s.end());
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  s.erase(0, std::min(s.find_first_not_of('0'), s.size() > 0 ? s.size() - 1 : 0));
  return s;
}

// The serial HAProxy serves for the certificate, or the outcome saying why there is none.
std::variant<std::string, TargetOutcome> servedSerial(const ports::TargetAccess& target) {
  const std::string name = domain::settingOf(target.settings, "cert_name");
  auto shown = ask(target, "show ssl cert " + name + "\n");
  if (!shown) return outcomeOf(shown.error(), domain::target_error::connect_failed);
  const auto at = shown->find("Serial: ");
  if (at == std::string::npos) {
    return TargetOutcome::failure(
        domain::target_error::write_failed,
        "HAProxy has no certificate " + name + " loaded: " + refusalOf(*shown));
  }
  const auto end = shown->find('\n', at);
  return normalSerial(shown->substr(at + 8, end == std::string::npos ? end : end - at - 8));
}

// "2.6.12-1+deb12u1", "3.0.5", "2.8-dev7": digits '.' digits, then digits, dots, and a suffix
// of letters, digits and "-+~." — HAProxy's answer to `show version`.
bool isVersionLine(const std::string& line) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) && i - from < 4)
      ++i;
    return i > from;
  };
  if (line.size() > 80 || !digits() || i >= line.size() || line[i++] != '.' || !digits()) {
    return false;
  }
  for (; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (!std::isalnum(c) && c != '.' && c != '-' && c != '+' && c != '~') return false;
  }
  return true;
}

// Whether the peer at runtime_address is HAProxy's runtime API: its `show version` answers one
// version line ("2.6.12-1+deb12u1") and nothing else. Asked before any key is sent.
std::optional<TargetOutcome> notHaproxy(const ports::TargetAccess& target) {
  auto version = ask(target, "show version\n");
  if (!version) return outcomeOf(version.error(), domain::target_error::connect_failed);
  std::string line = version->substr(0, version->find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::string rest = version->substr(std::min(version->size(), line.size() + 1));
  const bool onlyBlank = rest.find_first_not_of("\r\n") == std::string::npos;
  if (isVersionLine(line) && onlyBlank) return std::nullopt;
  return TargetOutcome::failure(domain::target_error::connect_failed,
                                "what answers at runtime_address is not HAProxy's runtime API "
                                "(show version): nothing was sent");
}

TargetOutcome commit(const ports::TargetAccess& target, const domain::CertificateVersion& v,
                     bool verify) {
  const std::string name = domain::settingOf(target.settings, "cert_name");
  if (auto refused = notHaproxy(target)) return *refused;
  auto set = ask(target, "set ssl cert " + name + " <<\n" + payloadOf(v) + "\n");
  if (!set) return outcomeOf(set.error(), domain::target_error::write_failed);
  if (set->find("Transaction created") == std::string::npos &&
      set->find("Transaction updated") == std::string::npos) {
    return TargetOutcome::failure(domain::target_error::write_failed,
                                  "HAProxy refused the certificate: " + refusalOf(*set));
  }
  auto committed = ask(target, "commit ssl cert " + name + "\n");
  if (!committed || committed->find("Success!") == std::string::npos) {
    (void)ask(target, "abort ssl cert " + name + "\n");
    if (!committed) return outcomeOf(committed.error(), domain::target_error::write_failed);
    return TargetOutcome::failure(
        domain::target_error::write_failed,
        "HAProxy did not commit the certificate: " + refusalOf(*committed));
  }
  if (target.step) target.step("HAProxy committed serial " + v.serial_number + " as " + name);
  if (verify) {
    const auto patience = std::min(millis(target.timeout), verifyPatience());
    if (auto problem = checkServedCertificate(target.settings, v.certificate_pem, patience)) {
      return TargetOutcome::failure(domain::target_error::verify_failed, *problem);
    }
  }
  return TargetOutcome::success();
}

}  // namespace

TargetOutcome HaproxyModule::plan(const ports::TargetAccess& target,
                                  const domain::CertificateVersion& next) {
  if (auto refused = notHaproxy(target)) return *refused;
  auto served = servedSerial(target);
  if (auto* refused = std::get_if<TargetOutcome>(&served)) return *refused;
  auto out = TargetOutcome::success();
  out.changes.push_back({"haproxy cert " + domain::settingOf(target.settings, "cert_name"),
                         std::get<std::string>(served) == normalSerial(next.serial_number)
                             ? "unchanged"
                             : "replace"});
  return out;
}

TargetOutcome HaproxyModule::deliver(const ports::TargetAccess& target,
                                     const domain::CertificateVersion& next) {
  return commit(target, next, true);
}

TargetOutcome HaproxyModule::restore(const ports::TargetAccess& target,
                                     const domain::CertificateVersion* previous) {
  if (previous == nullptr) {
    return TargetOutcome::failure(domain::target_error::nothing_to_restore,
                                  "no earlier version is known");
  }
  return commit(target, *previous, false);
}

TargetOutcome HaproxyModule::check(const ports::TargetAccess& target) {
  if (auto refused = notHaproxy(target)) return *refused;
  auto served = servedSerial(target);
  if (auto* refused = std::get_if<TargetOutcome>(&served)) return *refused;
  return TargetOutcome::success();
}

}  // namespace certsteward::adapters::distribution

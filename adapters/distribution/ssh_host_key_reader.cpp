// Reading an SSH server's host key with libssh.
#include <certsteward/adapters/distribution/ssh_host_key_reader.hpp>

#include <libssh/libssh.h>

#include <algorithm>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::distribution {
namespace {

struct Session {
  ssh_session s = ssh_new();
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (s == nullptr) return;
    if (ssh_is_connected(s) != 0) ssh_disconnect(s);
    ssh_free(s);
  }
};

struct Key {
  ssh_key k = nullptr;
  Key() = default;
  Key(const Key&) = delete;
  Key& operator=(const Key&) = delete;
  ~Key() {
    if (k != nullptr) ssh_key_free(k);
  }
};

}  // namespace

domain::Result<ports::SshHostKey> SshHostKeyReader::read(const std::string& host, int port,
                                                         domain::Duration timeout) {
  const std::string where = host + ":" + std::to_string(port);
  auto addresses = outbound_->addressesOf(host);
  if (!addresses) return addresses.error();
  if (addresses->empty())
    return domain::makeError(domain::ErrorCode::unavailable, common::couldNotConnect(where));
  const std::string address = domain::formatIpAddress(addresses->front());
  Session session;
  if (session.s == nullptr) return domain::makeError(domain::ErrorCode::internal, "no SSH session");
  const auto portNumber = static_cast<unsigned>(port);
  const long seconds = std::max<long>(
      1, static_cast<long>(std::chrono::ceil<std::chrono::seconds>(timeout).count()));
  const bool no = false;
  ssh_options_set(session.s, SSH_OPTIONS_HOST, address.c_str());
  ssh_options_set(session.s, SSH_OPTIONS_PORT, &portNumber);
  ssh_options_set(session.s, SSH_OPTIONS_TIMEOUT, &seconds);
  ssh_options_set(session.s, SSH_OPTIONS_PROCESS_CONFIG, &no);  // nothing from ~/.ssh/config
  ssh_options_set(session.s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
  ssh_options_set(session.s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
  if (ssh_connect(session.s) != SSH_OK) {
    common::logOutboundDetail(where, ssh_get_error(session.s));
    return domain::makeError(domain::ErrorCode::unavailable, common::couldNotConnect(where));
  }
  Key key;
  if (ssh_get_server_publickey(session.s, &key.k) != SSH_OK) {
    return domain::makeError(domain::ErrorCode::unavailable, where + " presented no host key");
  }
  unsigned char* hash = nullptr;
  size_t hashLen = 0;
  if (ssh_get_publickey_hash(key.k, SSH_PUBLICKEY_HASH_SHA256, &hash, &hashLen) != 0) {
    return domain::makeError(domain::ErrorCode::internal, "cannot hash the host key");
  }
  std::string fingerprint =
      "SHA256:" + domain::base64Encode(std::string(reinterpret_cast<char*>(hash), hashLen));
  ssh_clean_pubkey_hash(&hash);
  while (!fingerprint.empty() && fingerprint.back() == '=')
    fingerprint.pop_back();
  const char* type = ssh_key_type_to_char(ssh_key_type(key.k));
  return ports::SshHostKey{std::move(fingerprint), type == nullptr ? "unknown" : type};
}

}  // namespace certsteward::adapters::distribution

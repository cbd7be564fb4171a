// Finding and reading the server's own managed certificate.
#include <certsteward/services/served_certificate.hpp>

#include <cctype>
#include <utility>

namespace certsteward::services {

ServedCertificate::ServedCertificate(const ports::ProjectRepository& projects,
                                     const ports::CertificateRepository& certificates,
                                     const ports::SecretBox& secrets, domain::Id certificateId)
    : projects_(projects),
      certificates_(certificates),
      secrets_(secrets),
      id_(std::move(certificateId)) {}

std::string normalizedSerial(const std::string& serial) {
  std::string out;
  for (const char c : serial) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) continue;  // ':' and the like
    if (out.empty() && c == '0') continue;
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out.empty() ? "0" : out;
}

domain::Result<domain::Certificate> ServedCertificate::find() {
  if (project_) {
    auto cert = certificates_.get(*project_, id_);
    if (cert || cert.error().code != domain::ErrorCode::not_found) return cert;
    project_.reset();  // moved or deleted: look again
  }
  for (std::int64_t page = 1; page <= 100000; ++page) {  // bounded: 10 million projects
    auto some = projects_.list(domain::PageRequest{page, 100});
    if (!some) return some.error();
    const auto& items = some->items;
    for (const auto& project : items) {
      auto cert = certificates_.get(project.id, id_);
      if (cert) {
        project_ = project.id;
        return cert;
      }
      if (cert.error().code != domain::ErrorCode::not_found) return cert.error();
    }
    if (static_cast<std::int64_t>(items.size()) < 100) break;
  }
  return makeError(domain::ErrorCode::not_found,
                   "server.tls.certificate_id: no project holds certificate " + id_);
}

domain::Result<std::optional<ServedMaterial>> ServedCertificate::changedSince(
    const std::string& servedSerial) {
  auto cert = find();
  if (!cert) return cert.error();
  if (cert->certificate_pem.empty() || cert->private_key_sealed.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "server.tls.certificate_id: certificate " + id_ +
                         " has not been issued yet (status " + std::string(nameOf(cert->status)) +
                         ")");
  }
  if (!servedSerial.empty() &&
      normalizedSerial(cert->serial_number) == normalizedSerial(servedSerial)) {
    return std::optional<ServedMaterial>();
  }
  auto key = secrets_.open(cert->private_key_sealed);
  if (!key) {
    return makeError(
        domain::ErrorCode::internal,
        "server.tls.certificate_id: the stored private key of " + id_ + " cannot be decrypted");
  }
  std::string chain = cert->certificate_pem;
  if (!chain.empty() && chain.back() != '\n') chain += '\n';
  chain += cert->chain_pem;
  return std::optional<ServedMaterial>(
      ServedMaterial{cert->serial_number, std::move(chain), std::move(*key)});
}

}  // namespace certsteward::services

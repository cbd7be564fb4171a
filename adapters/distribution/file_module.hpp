// The `file` module: the certificate files on the server's own machine (for a proxy running
// beside it), written as the server's user under the directories the operator allows
// (`distribution.file_directories`), with a reload command from `distribution.exec_commands`
// run as the DNS hooks are (no shell, minimal environment, own process group, timeout).
#pragma once

#include <string>
#include <vector>

#include <certsteward/ports/distribution_module.hpp>

namespace certsteward::adapters::distribution {

struct FileModuleSettings {
  std::vector<std::string> exec_commands;     // what reload_command may name
  std::vector<std::string> file_directories;  // where files may be written (and below)
};

class FileModule : public ports::DistributionModule {
 public:
  explicit FileModule(FileModuleSettings settings) : settings_(std::move(settings)) {}

  ports::TargetOutcome plan(const ports::TargetAccess& target,
                            const domain::CertificateVersion& next) override;
  ports::TargetOutcome deliver(const ports::TargetAccess& target,
                               const domain::CertificateVersion& next) override;
  ports::TargetOutcome restore(const ports::TargetAccess& target,
                               const domain::CertificateVersion* previous) override;
  ports::TargetOutcome check(const ports::TargetAccess& target) override;
  ports::TargetOutcome putChallengeFile(const ports::TargetAccess& target, const std::string& token,
                                        const std::string& content) override;
  ports::TargetOutcome removeChallengeFile(const ports::TargetAccess& target,
                                           const std::string& token) override;
  bool supportsRollback() const override { return true; }
  bool rollbackNeedsPreviousVersion() const override { return false; }

 private:
  FileModuleSettings settings_;
};

}  // namespace certsteward::adapters::distribution

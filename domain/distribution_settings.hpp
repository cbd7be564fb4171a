// The settings of a distribution target, per module: which exist, which are required, and what
// a valid value is. A target's effective settings are its module configuration's `settings`
// (defaults shared by every target) overlaid by the target's own. Checked when a module
// configuration is saved, so nothing hostile ever reaches a module.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/module_config.hpp>
#include <certsteward/domain/network_names.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/settings_schema.hpp>

namespace certsteward::domain {

// The module names this service knows: "ssh", "file", "haproxy", "webhook" (domain/catalog.hpp
// describes their settings).
const std::vector<std::string_view>& distributionModuleNames();

// What the operator allows `file` targets: the absolute paths a reload_command may name, and
// where files may go.
struct DistributionPolicy {
  std::vector<std::string> exec_commands;
  // The directories (absolute) below which `file` targets may write; none: no file target.
  std::vector<std::string> file_directories;
};

// Whether `key` is a setting of targets of `module`.
bool isModuleSetting(std::string_view module, std::string_view key);

// The setting's value, or `fallback` when it is absent or empty.
std::string settingOf(const Settings& settings, std::string_view key, std::string fallback = {});

// The module configuration's settings overlaid by the target's own.
Settings effectiveSettings(const ModuleConfig& config, const DistributionTarget& target);

// invalid_argument (kInvalidField, the setting in references[0]) naming the target and setting
// when the effective settings of `target` are not valid for `module`: an unknown or missing
// setting, a relative path or one with "..", control characters, a bad port, mode, fingerprint or
// URL, a command not allowed.
Status checkTargetSettings(std::string_view module, const std::string& targetName,
                           const Settings& settings, const DistributionPolicy& policy);

// Whether targets of `module` must name a credential to be reached (ssh, webhook).
bool moduleNeedsCredential(std::string_view module);
// The credential kinds a target of `module` accepts.
std::vector<std::string_view> credentialKindsFor(std::string_view module);

// The files a file-writing module (ssh, file) puts on a target, from validated settings.
struct TargetFiles {
  std::string cert_path, key_path, chain_path, fullchain_path;
  int cert_mode = 0644;  // certificates; the key is always 0600
};
TargetFiles targetFiles(const Settings& settings);

}  // namespace certsteward::domain

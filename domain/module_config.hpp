// A configured distribution module (SSH hosts, webhook, file, ...) and its targets.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct DistributionTarget {
  std::string name;
  std::map<std::string, std::string> settings;  // host, port, path, url, ...
  Id credential_id;                             // empty when the module needs none
};

struct ModuleConfig {
  Id id;
  Id project_id;
  std::string name;
  std::string module;  // "ssh", "webhook", "file", ...
  std::map<std::string, std::string> settings;
  std::vector<DistributionTarget> targets;
  bool auto_rollback_on_failure = false;
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain

// A directory for tests of directory logins (this project's and an embedding team's): people
// with passwords and groups in memory, found by exact username like a real directory with an
// escaped filter (a pattern such as "*" is a name, not a wildcard). It can be made unreachable,
// and it records the settings of the last call. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <certsteward/ports/directory.hpp>

namespace certsteward::testing {

class FakeDirectory : public ports::Directory {
 public:
  // Adds or replaces a person (a replaced person is another entry: a new id); the entry's
  // username attribute is `username`.
  void person(const std::string& username, const std::string& password,
              std::vector<std::string> groups) {
    std::lock_guard lock(mu_);
    people_[username] = {password,
                         {"uuid-" + username + "-" + std::to_string(++generation_), username,
                          "uid=" + username + ",ou=people,dc=example,dc=test",
                          username + "@example.test", std::move(groups)}};
  }
  void setGroups(const std::string& username, std::vector<std::string> groups) {
    std::lock_guard lock(mu_);
    people_.at(username).user.groups = std::move(groups);
  }
  void setReachable(bool reachable) {
    std::lock_guard lock(mu_);
    reachable_ = reachable;
  }
  int calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  std::string lastBindPassword() const {
    std::lock_guard lock(mu_);
    return lastBindPassword_;
  }

  domain::Result<ports::DirectoryUser> authenticate(const ports::DirectoryAccess& access,
                                                    std::string_view username,
                                                    std::string_view password) override {
    std::lock_guard lock(mu_);
    ++calls_;
    lastBindPassword_ = std::string(access.bind_password);
    if (!reachable_) {
      return domain::makeError(domain::ErrorCode::unavailable,
                               "cannot connect: the directory is unreachable",
                               "DIRECTORY_UNREACHABLE");
    }
    const auto it = people_.find(std::string(username));
    if (password.empty() || it == people_.end() || it->second.password != password) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "invalid username or password",
                               "INVALID_CREDENTIALS");
    }
    auto user = it->second.user;
    if (access.settings.group_base_dn.empty()) user.groups.clear();
    return user;
  }

  domain::Result<ports::DirectoryUser> lookup(const ports::DirectoryAccess& access,
                                              std::string_view username) override {
    std::lock_guard lock(mu_);
    ++calls_;
    if (!reachable_) {
      return domain::makeError(domain::ErrorCode::unavailable,
                               "cannot connect: the directory is unreachable",
                               "DIRECTORY_UNREACHABLE");
    }
    const auto it = people_.find(std::string(username));
    if (it == people_.end()) {
      return domain::makeError(domain::ErrorCode::not_found,
                               "the directory no longer lists this user");
    }
    auto user = it->second.user;
    if (access.settings.group_base_dn.empty()) user.groups.clear();
    return user;
  }
  void remove(const std::string& username) {
    std::lock_guard lock(mu_);
    people_.erase(username);
  }

  std::vector<ports::DirectoryCheck> test(const ports::DirectoryAccess& access) override {
    std::lock_guard lock(mu_);
    ++calls_;
    lastBindPassword_ = std::string(access.bind_password);
    const std::string where = access.settings.host + ":" + std::to_string(access.settings.port);
    if (!reachable_) return {{"connect", false, "cannot connect to " + where}};
    std::vector<ports::DirectoryCheck> steps{{"connect", true, "connected to " + where}};
    if (access.settings.security != domain::LdapSecurity::none) {
      steps.push_back({"tls", true, "TLS established"});
    }
    steps.push_back({"bind", true, "bound"});
    steps.push_back({"search", true, "searched under " + access.settings.base_dn});
    return steps;
  }

 private:
  struct Person {
    std::string password;
    ports::DirectoryUser user;
  };
  mutable std::mutex mu_;
  std::map<std::string, Person> people_;
  bool reachable_ = true;
  int calls_ = 0;
  int generation_ = 0;
  std::string lastBindPassword_;
};

}  // namespace certsteward::testing

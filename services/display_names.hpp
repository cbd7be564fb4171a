// DisplayNames: the names lists show beside ids, so that a client shows "www.example.com" and
// "web servers" instead of two ids and does not fetch each one: a certificate's common name and
// a module configuration's name, each read once per list. "" for an id that names nothing of
// the project (any more). Lives for one call; not thread-safe.
#pragma once

#include <map>
#include <string>

#include <certsteward/domain/id.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>

namespace certsteward::services {

class DisplayNames {
 public:
  DisplayNames(const ports::CertificateRepository& certificates, domain::Id projectId,
               const ports::ModuleConfigRepository* modules = nullptr)
      : certificates_(certificates), modules_(modules), projectId_(std::move(projectId)) {}

  std::string certificate(const domain::Id& id) {
    if (id.empty()) return {};
    const auto [it, added] = certificateNames_.try_emplace(id);
    if (added) {
      if (auto c = certificates_.get(projectId_, id)) it->second = c->common_name;
    }
    return it->second;
  }

  std::string module(const domain::Id& id) {
    if (id.empty() || modules_ == nullptr) return {};
    const auto [it, added] = moduleNames_.try_emplace(id);
    if (added) {
      if (auto m = modules_->get(projectId_, id)) it->second = m->name;
    }
    return it->second;
  }

 private:
  const ports::CertificateRepository& certificates_;
  const ports::ModuleConfigRepository* modules_;
  domain::Id projectId_;
  std::map<domain::Id, std::string> certificateNames_;
  std::map<domain::Id, std::string> moduleNames_;
};

}  // namespace certsteward::services

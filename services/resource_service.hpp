// ResourceService<T>: the use cases shared by every project-scoped configuration resource
// (ACME accounts, DNS credentials, zones, credentials, module configurations, notification
// channels and rules): read with the project viewer role, change with the project admin role,
// secrets sealed before they are stored, every change audited, deletes blocked while something
// still refers to the resource.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/name.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

template <class T>
class ResourceService {
 public:
  struct Options {
    std::string kind;                                  // "zone": audit actions "zone.create", ...
    std::string T::*sealed = nullptr;                  // where the sealed secret lives, if any
    std::function<domain::Status(const T&)> validate;  // extra checks against other resources (422)
    // What still refers to the resource ("zone <id>", ...): a non-empty answer blocks delete.
    std::function<domain::Result<std::vector<std::string>>(const T&)> references;
    // The shape of a secret given in this request, before it is sealed (422; the message never
    // quotes it). Optional.
    std::function<domain::Status(const T&, std::string_view secret)> checkSecret = {};
    // A change that needs more than its result to judge (before, after, whether this request
    // gives a new secret): 422. Optional.
    std::function<domain::Status(const T& before, const T& after, bool secretGiven)> checkChange =
        {};
    // Completes the resource from others inside the change's transaction, before `validate`
    // (`before`: null on create). Optional.
    std::function<domain::Status(T& entity, const T* before, const Principal& who,
                                 const RequestContext& ctx)>
        prepare = {};
    std::vector<std::string> guards = {};  // more guards for the change's transaction
  };

  ResourceService(ports::ProjectScopedRepository<T>& repo, ports::SecretBox& secrets,
                  ports::IdGenerator& ids, const ports::Clock& clock, UnitOfWork& work,
                  const AccessControl& access, AuditService& audit, Options options)
      : repo_(repo),
        work_(work),
        secrets_(secrets),
        ids_(ids),
        clock_(clock),
        access_(access),
        audit_(audit),
        options_(std::move(options)) {}

  domain::Result<domain::Page<T>> list(const Principal& who, const domain::Id& projectId,
                                       const domain::PageRequest& page) {
    if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
    return repo_.list(projectId, page);
  }

  domain::Result<T> get(const Principal& who, const domain::Id& projectId, const domain::Id& id) {
    if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
    return repo_.get(projectId, id);
  }

  // `secret`: plaintext to seal into the secret field (ignored when the kind has none).
  domain::Result<T> create(const Principal& who, const RequestContext& ctx,
                           const domain::Id& projectId, T draft,
                           const std::optional<std::string>& secret) {
    if (auto s = manage(who, projectId); !s) return s.error();
    const domain::Timestamp now = clock_.now();
    draft.id = ids_.next();
    draft.project_id = projectId;
    draft.created_at = now;
    draft.updated_at = now;
    if (auto s = checkNames(draft); !s) return s.error();
    if (auto s = checkSecret(draft, secret); !s) return s.error();
    if (auto s = seal(draft, secret); !s) return s.error();
    const domain::Status done = work_.inProject(
        projectId,
        [&]() -> domain::Status {
          if (options_.prepare) {
            if (auto s = options_.prepare(draft, nullptr, who, ctx); !s) return s;
          }
          if (options_.validate) {
            if (auto s = options_.validate(draft); !s) return s;
          }
          if (auto s = repo_.create(draft); !s) return s;
          return audit_.record(&who, ctx, options_.kind + ".create", options_.kind, draft.id,
                               projectId);
        },
        options_.guards);
    if (!done) return done.error();
    return draft;
  }

  domain::Result<T> update(const Principal& who, const RequestContext& ctx,
                           const domain::Id& projectId, const domain::Id& id,
                           const std::function<void(T&)>& change,
                           const std::optional<std::string>& secret) {
    if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
    auto entity = repo_.get(projectId, id);
    if (!entity) return entity.error();
    if (auto s = manage(who, projectId); !s) return s.error();
    const T before = *entity;
    change(*entity);
    entity->id = id;
    entity->project_id = projectId;
    entity->updated_at = clock_.now();
    if (auto s = checkNames(*entity); !s) return s.error();
    if (options_.checkChange) {
      if (auto s = options_.checkChange(before, *entity, secret && !secret->empty()); !s) {
        return s.error();
      }
    }
    if (auto s = checkSecret(*entity, secret); !s) return s.error();
    if (auto s = seal(*entity, secret); !s) return s.error();
    const domain::Status done = work_.inProject(
        projectId,
        [&]() -> domain::Status {
          if (options_.prepare) {
            if (auto s = options_.prepare(*entity, &before, who, ctx); !s) return s;
          }
          if (options_.validate) {
            if (auto s = options_.validate(*entity); !s) return s;
          }
          if (auto s = repo_.update(*entity); !s) return s;
          return audit_.record(&who, ctx, options_.kind + ".update", options_.kind, id, projectId);
        },
        options_.guards);
    if (!done) return done.error();
    return entity;
  }

  domain::Status remove(const Principal& who, const RequestContext& ctx,
                        const domain::Id& projectId, const domain::Id& id) {
    if (auto s = access_.check(who, Action::read_project, projectId); !s) return s;
    auto entity = repo_.get(projectId, id);
    if (!entity) return entity.error();
    if (auto s = manage(who, projectId); !s) return s;
    return work_.inProject(projectId, [&]() -> domain::Status {
      if (options_.references) {
        auto refs = options_.references(*entity);
        if (!refs) return refs.error();
        if (!refs->empty()) {
          domain::Error e = makeError(domain::ErrorCode::conflict,
                                      "the " + options_.kind + " is still in use by " +
                                          std::to_string(refs->size()) + " resource(s)",
                                      "DEPENDENCY_CONFLICT");
          e.references = std::move(*refs);
          return e;
        }
      }
      if (auto s = repo_.remove(projectId, id); !s) return s;
      return audit_.record(&who, ctx, options_.kind + ".delete", options_.kind, id, projectId);
    });
  }

 private:
  domain::Status checkSecret(const T& entity, const std::optional<std::string>& secret) const {
    if (!options_.checkSecret || !secret || secret->empty()) return {};
    return options_.checkSecret(entity, *secret);
  }

  // The one name rule, for the resource's name and its targets' names where it has them.
  static domain::Status checkNames(const T& entity) {
    if constexpr (requires { entity.name; }) {
      if (!domain::isValidName(entity.name)) {
        return makeError(domain::ErrorCode::invalid_argument,
                         std::string("name ") + domain::kNameRule);
      }
    }
    if constexpr (requires { entity.targets; }) {
      for (const auto& target : entity.targets) {
        if (!domain::isValidName(target.name)) {
          return makeError(domain::ErrorCode::invalid_argument,
                           std::string("every target's name ") + domain::kNameRule);
        }
      }
    }
    return {};
  }

  domain::Status manage(const Principal& who, const domain::Id& projectId) {
    return access_.check(who, Action::manage_project_config, projectId);
  }

  // A secret given is sealed in; "" removes the stored one (a kind that needs one then refuses
  // the change), so an empty secret is never "configured".
  domain::Status seal(T& entity, const std::optional<std::string>& secret) {
    if (!secret || options_.sealed == nullptr) return {};
    if (secret->empty()) {
      (entity.*(options_.sealed)).clear();
      return {};
    }
    if (secret->size() > 64 * 1024) {
      return makeError(domain::ErrorCode::invalid_argument, "the secret is larger than 64 KiB");
    }
    auto sealed = secrets_.seal(*secret);
    if (!sealed) return sealed.error();
    entity.*(options_.sealed) = std::move(*sealed);
    return {};
  }

  ports::ProjectScopedRepository<T>& repo_;
  UnitOfWork& work_;
  ports::SecretBox& secrets_;
  ports::IdGenerator& ids_;
  const ports::Clock& clock_;
  const AccessControl& access_;
  AuditService& audit_;
  Options options_;
};

}  // namespace certsteward::services

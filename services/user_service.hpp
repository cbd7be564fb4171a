// UserService: the org's users. Admins manage users but never owners; only owners create or
// promote owners; nobody disables, demotes or deletes themselves (no lock-out by accident).
// A password change or disabling a user revokes all of their refresh tokens.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/password_hasher.hpp>
#include <certsteward/ports/random.hpp>
#include <certsteward/ports/refresh_token_store.hpp>
#include <certsteward/ports/time_zones.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

// A change of the caller's own profile preferences (unset = unchanged).
struct ProfileChanges {
  std::optional<std::string> time_zone;
  std::optional<std::string> language;
  std::optional<std::map<std::string, std::string>> notification_preferences;  // merged in
};

struct UserChanges {
  std::optional<std::string> password;
  std::optional<bool> disabled;
  std::optional<domain::OrgRole> org_role;
};

inline constexpr std::size_t kMinPasswordLength = 8;

class UserService {
 public:
  struct Ports {
    const ports::TimeZones& timeZones;
    ports::UserRepository& users;
    ports::RefreshTokenStore& refreshTokens;
    ports::PasswordHasher& hasher;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    ports::Random* random = nullptr;  // a bootstrap owner's generated password (none: required)
  };
  UserService(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  domain::Result<domain::User> create(const Principal& who, const RequestContext& ctx,
                                      std::string username, const std::string& password,
                                      domain::OrgRole role);
  domain::Result<domain::Page<domain::User>> list(const Principal& who,
                                                  const domain::PageRequest& page);
  domain::Result<domain::User> get(const Principal& who, const domain::Id& id);

  // The caller's profile preferences (any authenticated user, their own only).
  domain::Result<domain::User> profile(const Principal& who);
  // invalid_argument (422) naming the field: an unknown IANA time zone, a malformed BCP 47
  // language tag, an unknown event kind or a preference other than "on"/"off". Audited.
  domain::Result<domain::User> updateProfile(const Principal& who, const RequestContext& ctx,
                                             const ProfileChanges& changes);
  domain::Result<domain::User> update(const Principal& who, const RequestContext& ctx,
                                      const domain::Id& id, const UserChanges& changes);
  domain::Status remove(const Principal& who, const RequestContext& ctx, const domain::Id& id);

  // First start: when the store has no user, creates `username` as owner with `password`, or,
  // when it is empty, with a generated one (20 characters of a 58-symbol alphabet without
  // look-alikes, about 117 bits, through the Random port), returned once for the console.
  // Returns nullopt when users already exist; invalid_argument without a password and no Random.
  struct BootstrappedOwner {
    domain::User user;
    std::string generated_password;  // empty when the password was given
  };
  domain::Result<std::optional<BootstrappedOwner>> bootstrapOwner(const std::string& username,
                                                                  const std::string& password);
  // The command line's `certsteward user create` (no caller: the operator has the machine).
  domain::Result<domain::User> createFromCli(const std::string& username,
                                             const std::string& password, domain::OrgRole role);
  // `certsteward user reset-password` (whoever can open the store): a local user's new
  // password; every session of the user ends. not_found for an unknown name,
  // failed_precondition for a directory or SSO user, invalid_argument for a weak password.
  domain::Status resetPasswordFromCli(const std::string& username, const std::string& password);

 private:
  domain::Result<domain::User> insert(std::string username, const std::string& password,
                                      domain::OrgRole role);
  domain::Status mayManage(const Principal& who, const domain::User& target,
                           std::optional<domain::OrgRole> newRole);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

// 8..72 bytes, no NUL (bcrypt's limits).
domain::Status validatePassword(const std::string& password);

}  // namespace certsteward::services

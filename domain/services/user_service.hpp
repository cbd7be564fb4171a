// UserService: the org's users. Admins manage users but never owners; only owners create or
// promote owners; nobody disables, demotes or deletes themselves (no lock-out by accident).
// A password change or disabling a user revokes all of their refresh tokens.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/clock.hpp"
#include "ports/id_generator.hpp"
#include "ports/password_hasher.hpp"
#include "ports/random.hpp"
#include "ports/refresh_token_store.hpp"
#include "ports/time_zones.hpp"
#include "ports/user_repository.hpp"

namespace certsteward::domain {

// A change of the caller's own profile preferences (unset = unchanged).
struct ProfileChanges {
  std::optional<std::string> time_zone;
  std::optional<std::string> language;
  std::optional<std::map<std::string, std::string>> notification_preferences;  // merged in
};

struct UserChanges {
  std::optional<std::string> password;
  std::optional<bool> disabled;
  std::optional<OrgRole> org_role;
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

  Result<User> create(const Principal& who, const RequestContext& ctx, std::string username,
                      const std::string& password, OrgRole role);
  Result<Page<User>> list(const Principal& who, const PageRequest& page);
  Result<User> get(const Principal& who, const Id& id);

  // The caller's profile preferences (any authenticated user, their own only).
  Result<User> profile(const Principal& who);
  // invalid_argument (422) naming the field: an unknown IANA time zone, a malformed BCP 47
  // language tag, an unknown event kind or a preference other than "on"/"off". Audited.
  Result<User> updateProfile(const Principal& who, const RequestContext& ctx,
                             const ProfileChanges& changes);
  Result<User> update(const Principal& who, const RequestContext& ctx, const Id& id,
                      const UserChanges& changes);
  Status remove(const Principal& who, const RequestContext& ctx, const Id& id);

  // First start: when the store has no user, creates `username` as owner with `password`, or,
  // when it is empty, with a generated one (20 characters of a 58-symbol alphabet without
  // look-alikes, about 117 bits, through the Random port), returned once for the console.
  // Returns nullopt when users already exist; invalid_argument without a password and no Random.
  struct BootstrappedOwner {
    User user;
    std::string generated_password;  // empty when the password was given
  };
  Result<std::optional<BootstrappedOwner>> bootstrapOwner(const std::string& username,
                                                          const std::string& password);
  // The command line's `certsteward user create` (no caller: the operator has the machine).
  Result<User> createFromCli(const std::string& username, const std::string& password,
                             OrgRole role);
  // `certsteward user reset-password` (whoever can open the store): a local user's new
  // password; every session of the user ends. not_found for an unknown name,
  // failed_precondition for a directory or SSO user, invalid_argument for a weak password.
  Status resetPasswordFromCli(const std::string& username, const std::string& password);

 private:
  Result<User> insert(std::string username, const std::string& password, OrgRole role);
  Status mayManage(const Principal& who, const User& target, std::optional<OrgRole> newRole);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

// 8..72 bytes, no NUL (bcrypt's limits).
Status validatePassword(const std::string& password);

}  // namespace certsteward::domain

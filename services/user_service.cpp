// Users.
#include <certsteward/services/user_service.hpp>

#include <certsteward/domain/events.hpp>

namespace certsteward::services {

domain::Status validatePassword(const std::string& password) {
  if (password.size() < kMinPasswordLength || password.size() > 72 ||
      password.find('\0') != std::string::npos) {
    return makeError(domain::ErrorCode::invalid_argument, "password must be 8 to 72 bytes long");
  }
  return {};
}

domain::Result<domain::User> UserService::insert(  // validates and hashes; stores nothing
    std::string username, const std::string& password, domain::OrgRole role) {
  if (!domain::isValidUsername(username)) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "username must be 1 to 64 characters of a-z, 0-9, '.', '_', '@', '-'");
  }
  if (auto s = validatePassword(password); !s) return s.error();
  auto hash = p_.hasher.hash(password);
  if (!hash) return hash.error();
  const domain::Timestamp now = p_.clock.now();
  domain::User user;
  user.id = p_.ids.next();
  user.username = std::move(username);
  user.password_hash = std::move(*hash);
  user.org_role = role;
  user.created_at = now;
  user.updated_at = now;
  return user;
}

domain::Status UserService::mayManage(const Principal& who, const domain::User& target,
                                      std::optional<domain::OrgRole> newRole) {
  if (auto s = access_.check(who, Action::manage_users); !s) return s;
  const bool owner = who.user.org_role == domain::OrgRole::owner;
  if (!owner && (target.org_role == domain::OrgRole::owner || newRole == domain::OrgRole::owner)) {
    return makeError(domain::ErrorCode::permission_denied, "only an owner can manage owners");
  }
  return {};
}

domain::Result<domain::User> UserService::create(const Principal& who, const RequestContext& ctx,
                                                 std::string username, const std::string& password,
                                                 domain::OrgRole role) {
  domain::User target;
  target.org_role = role;
  if (auto s = mayManage(who, target, role); !s) return s.error();
  auto user = insert(std::move(username), password, role);
  if (!user) return user.error();
  std::optional<domain::User> created;
  const domain::Status done =
      work_.run([&]() -> domain::Status {  // the hash is made outside the transaction
        if (auto s = p_.users.create(*user); !s) return s;
        created = *user;
        return audit_.record(&who, ctx, "user.create", "user", created->id, std::nullopt,
                             std::string("org_role=") + std::string(nameOf(role)));
      });
  if (!done) return done.error();
  return std::move(*created);
}

domain::Result<domain::Page<domain::User>> UserService::list(const Principal& who,
                                                             const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::list_users); !s) return s.error();
  return p_.users.list(page);
}

domain::Result<domain::User> UserService::get(const Principal& who, const domain::Id& id) {
  if (who.user.id != id) {
    if (auto s = access_.check(who, Action::list_users); !s) return s.error();
  }
  return p_.users.get(id);
}

domain::Result<domain::User> UserService::profile(const Principal& who) {
  return p_.users.get(who.user.id);
}

domain::Result<domain::User> UserService::updateProfile(const Principal& who,
                                                        const RequestContext& ctx,
                                                        const ProfileChanges& changes) {
  if (changes.time_zone && !p_.timeZones.exists(*changes.time_zone)) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "time_zone must be an IANA time zone name such as Europe/Zurich or UTC");
  }
  if (changes.language && !domain::isWellFormedLanguageTag(*changes.language)) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "language must be a BCP 47 language tag such as en, de-CH or pt-BR");
  }
  if (changes.notification_preferences) {
    if (changes.notification_preferences->size() > 64) {
      return makeError(domain::ErrorCode::invalid_argument, "notifications: too many entries");
    }
    for (const auto& [kind, choice] : *changes.notification_preferences) {
      if (!domain::parseEventKind(kind)) {
        return makeError(domain::ErrorCode::invalid_argument,
                         "notifications: unknown event kind '" + kind.substr(0, 40) + "'");
      }
      if (choice != "on" && choice != "off") {
        return makeError(domain::ErrorCode::invalid_argument,
                         "notifications: each choice must be \"on\" or \"off\"");
      }
    }
  }
  std::optional<domain::User> out;
  const domain::Status done = work_.run(
      [&]() -> domain::Status {
        auto user = p_.users.get(who.user.id);
        if (!user) return user.error();
        if (changes.time_zone) user->time_zone = *changes.time_zone;
        if (changes.language) user->language = *changes.language;
        if (changes.notification_preferences) {
          for (const auto& [kind, choice] : *changes.notification_preferences)
            user->notification_preferences[kind] = choice;
        }
        user->updated_at = p_.clock.now();
        if (auto s = p_.users.update(*user); !s) return s;
        out = *user;
        return audit_.record(&who, ctx, "user.profile.update", "user", who.user.id);
      },
      {userGuard(who.user.id)});
  if (!done) return done.error();
  return std::move(*out);
}

domain::Result<domain::User> UserService::update(const Principal& who, const RequestContext& ctx,
                                                 const domain::Id& id, const UserChanges& changes) {
  auto user = p_.users.get(id);
  if (!user) return user.error();
  if (auto s = mayManage(who, *user, changes.org_role); !s) return s.error();
  if (who.user.id == id && (changes.disabled.value_or(false) ||
                            (changes.org_role && *changes.org_role != who.user.org_role))) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "you cannot disable yourself or change your own role");
  }
  // One's own password needs the current one: whoever holds an admin's session must not be able
  // to take the account over.
  if (who.user.id == id && changes.password) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "change your own password with POST /api/v1/auth/password (the current "
                     "password is required there)");
  }
  std::optional<std::string> newHash;  // hashed before the transaction (it takes ~0.2 s)
  if (changes.password && user->auth_source != domain::AuthSource::local) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the password of a " + std::string(nameOf(user->auth_source)) +
                         " user is kept by the directory or identity provider; change it there",
                     "EXTERNAL_ACCOUNT");
  }
  if (changes.password) {
    if (auto s = validatePassword(*changes.password); !s) return s.error();
    auto hash = p_.hasher.hash(*changes.password);
    if (!hash) return hash.error();
    newHash = std::move(*hash);
  }
  std::string details;
  if (changes.password) details += "password ";
  if (changes.disabled) details += *changes.disabled ? "disabled " : "enabled ";
  if (changes.org_role) details += "org_role=" + std::string(nameOf(*changes.org_role));
  bool revoke = false;
  // Re-read and changed inside one transaction under the user's guard: a concurrent logout or
  // profile change cannot write the old hash or status back, nor this one undo theirs.
  const domain::Status done = work_.run(
      [&]() -> domain::Status {
        auto current = p_.users.get(id);
        if (!current) return current.error();
        if (auto s = mayManage(who, *current, changes.org_role); !s) return s;
        revoke =
            newHash.has_value() || (changes.disabled && *changes.disabled && !current->disabled);
        if (newHash) current->password_hash = *newHash;
        if (changes.disabled) current->disabled = *changes.disabled;
        if (changes.org_role) current->org_role = *changes.org_role;
        const domain::Timestamp now = p_.clock.now();
        current->updated_at = now;
        // Access tokens issued before a password change, a disable or a role change stop
        // working at once (AuthService::authenticate compares their issue time with this).
        if (revoke || changes.org_role) current->tokens_valid_after = now;
        if (auto s = p_.users.update(*current); !s) return s;
        user = *current;
        return audit_.record(&who, ctx, "user.update", "user", id, std::nullopt, details);
      },
      {userGuard(id)});
  if (!done) return done.error();
  if (revoke) {  // refresh tokens are outside transactions (ports::Store)
    if (auto s = p_.refreshTokens.revokeUser(id); !s) return s.error();
  }
  return user;
}

domain::Status UserService::remove(const Principal& who, const RequestContext& ctx,
                                   const domain::Id& id) {
  auto user = p_.users.get(id);
  if (!user) return user.error();
  if (auto s = mayManage(who, *user, std::nullopt); !s) return s;
  if (who.user.id == id) {
    return makeError(domain::ErrorCode::failed_precondition, "you cannot delete yourself");
  }
  const domain::Status done = work_.run([&]() -> domain::Status {
    if (auto s = p_.users.remove(id); !s) return s;
    return audit_.record(&who, ctx, "user.delete", "user", id);
  });
  if (!done) return done;
  return p_.refreshTokens.revokeUser(id);
}

domain::Result<std::optional<UserService::BootstrappedOwner>> UserService::bootstrapOwner(
    const std::string& username, const std::string& password) {
  auto count = p_.users.count();
  if (!count) return count.error();
  if (*count > 0) return std::optional<BootstrappedOwner>{};
  std::string generated;
  if (password.empty()) {
    if (p_.random == nullptr) {
      return makeError(domain::ErrorCode::invalid_argument, "the bootstrap owner needs a password");
    }
    static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    for (const char b : p_.random->bytes(20)) {
      generated.push_back(kAlphabet[static_cast<unsigned char>(b) % (sizeof(kAlphabet) - 1)]);
    }
  }
  auto user = insert(username, password.empty() ? generated : password, domain::OrgRole::owner);
  if (!user) return user.error();
  std::optional<domain::User> created;
  const domain::Status done = work_.run(
      [&]() -> domain::Status {         // the hash is made outside the transaction
        auto again = p_.users.count();  // another instance may have bootstrapped meanwhile
        if (!again) return again.error();
        if (*again > 0) return {};
        if (auto s = p_.users.create(*user); !s) return s;
        created = *user;
        return audit_.record(nullptr, {"", ""}, "user.bootstrap", "user", created->id);
      },
      {"users:bootstrap"});
  if (!done) return done.error();
  if (!created) return std::optional<BootstrappedOwner>{};  // another instance was first
  return std::optional<BootstrappedOwner>{BootstrappedOwner{*created, std::move(generated)}};
}

domain::Result<domain::User> UserService::createFromCli(const std::string& username,
                                                        const std::string& password,
                                                        domain::OrgRole role) {
  auto user = insert(username, password, role);
  if (!user) return user.error();
  std::optional<domain::User> created;
  const domain::Status done =
      work_.run([&]() -> domain::Status {  // the hash is made outside the transaction
        if (auto s = p_.users.create(*user); !s) return s;
        created = *user;
        return audit_.record(nullptr, {"", ""}, "user.create", "user", created->id, std::nullopt,
                             "cli");
      });
  if (!done) return done.error();
  return std::move(*created);
}

domain::Status UserService::resetPasswordFromCli(const std::string& username,
                                                 const std::string& password) {
  auto user = p_.users.getByUsername(username);
  if (!user) return user.error();
  if (user->auth_source != domain::AuthSource::local) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the password of a " + std::string(nameOf(user->auth_source)) +
                         " user is kept by the directory or identity provider; change it there");
  }
  if (auto s = validatePassword(password); !s) return s;
  auto hash = p_.hasher.hash(password);  // outside the transaction (~0.2 s)
  if (!hash) return hash.error();
  const domain::Status done = work_.run(
      [&]() -> domain::Status {
        auto current = p_.users.get(user->id);
        if (!current) return current.error();
        const domain::Timestamp now = p_.clock.now();
        current->password_hash = *hash;
        current->tokens_valid_after = now;
        current->updated_at = now;
        if (auto s = p_.users.update(*current); !s) return s;
        return audit_.record(nullptr, {"", ""}, "user.update", "user", current->id, std::nullopt,
                             "password (cli)");
      },
      {userGuard(user->id)});
  if (!done) return done;
  return p_.refreshTokens.revokeUser(user->id);
}

}  // namespace certsteward::services

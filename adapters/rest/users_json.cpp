#include <certsteward/adapters/rest/users_json.hpp>

namespace certsteward::adapters::rest {

json::object toJson(const domain::User& u) {
  return {{"id", u.id},
          {"username", u.username},
          {"org_role", std::string(nameOf(u.org_role))},
          {"auth_source", std::string(nameOf(u.auth_source))},
          {"disabled", u.disabled},
          {"totp_enabled", u.totp_enabled},
          {"created_at", timestamp(u.created_at)},
          {"updated_at", timestamp(u.updated_at)}};
}

}  // namespace certsteward::adapters::rest

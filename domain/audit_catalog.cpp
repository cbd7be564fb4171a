#include <certsteward/domain/audit_catalog.hpp>

#include <algorithm>
#include <array>

namespace certsteward::domain {
namespace {

// The configuration resources (services/configuration_services.cpp) record "<kind>.create",
// "<kind>.update" and "<kind>.delete" with the kind as resource type.
constexpr std::array kActions = {
    AuditActionSpec{"auth.login", "user", "signed in"},
    AuditActionSpec{"auth.login_failed", "user", "a sign-in was refused"},
    AuditActionSpec{"auth.login_otp_required", "user", "a password was right; a TOTP code is due"},
    AuditActionSpec{"auth.logout", "user", "signed out"},
    AuditActionSpec{"auth.session_end", "user", "ended one of their sessions"},
    AuditActionSpec{"auth.totp.setup", "user", "started TOTP set-up"},
    AuditActionSpec{"auth.totp.enable", "user", "turned TOTP on"},
    AuditActionSpec{"auth.totp.disable", "user", "turned TOTP off"},
    AuditActionSpec{"user.bootstrap", "user", "the first administrator was created"},
    AuditActionSpec{"user.create", "user", "a user was created"},
    AuditActionSpec{"user.update", "user", "a user was changed"},
    AuditActionSpec{"user.delete", "user", "a user was deleted"},
    AuditActionSpec{"user.profile.update", "user", "changed their own profile"},
    AuditActionSpec{"user.password_change", "user", "changed their own password"},
    AuditActionSpec{"project.create", "project", "a project was created"},
    AuditActionSpec{"project.update", "project", "a project was renamed or changed"},
    AuditActionSpec{"project.delete", "project", "a project was deleted"},
    AuditActionSpec{"project.issuance_update", "project",
                    "a project's issuance defaults or policy were changed"},
    AuditActionSpec{"project.member.put", "membership", "a member was added or their role set"},
    AuditActionSpec{"project.member.remove", "membership", "a member was removed"},
    AuditActionSpec{"license.activate", "license", "a licence was activated"},
    AuditActionSpec{"settings.ldap.update", "settings", "the LDAP settings were changed"},
    AuditActionSpec{"settings.ldap.test", "settings", "the LDAP connection was tested"},
    AuditActionSpec{"settings.oidc.update", "settings", "the OIDC settings were changed"},
    AuditActionSpec{"certificate.create", "certificate", "a certificate was requested"},
    AuditActionSpec{"certificate.ca_failover", "certificate",
                    "an order went on to the next CA of the certificate's issuer preference"},
    AuditActionSpec{"certificate.renew", "certificate", "a renewal was asked for"},
    AuditActionSpec{"certificate.update", "certificate",
                    "a certificate's renewal timing or issuer preference was changed"},
    AuditActionSpec{"certificate.delete", "certificate", "a certificate was deleted"},
    AuditActionSpec{"certificate.private_key_export", "certificate", "a private key was exported"},
    AuditActionSpec{"job.retry", "job", "a job was retried"},
    AuditActionSpec{"job.cancel", "job", "a job was cancelled"},
    AuditActionSpec{"job.dismiss", "job", "a failed job was dismissed"},
    AuditActionSpec{"distribution.create", "distribution", "a distribution was created"},
    AuditActionSpec{"distribution.delete", "distribution", "a distribution was deleted"},
    AuditActionSpec{"distribution.dry_run", "distribution", "a dry run was made"},
    AuditActionSpec{"distribution.execute", "distribution", "a delivery was started"},
    AuditActionSpec{"distribution.rollback", "distribution", "a rollback was started"},
    AuditActionSpec{"ca_provider.create", "ca_provider", "a CA provider was added"},
    AuditActionSpec{"ca_provider.update", "ca_provider", "a CA provider was changed"},
    AuditActionSpec{"ca_provider.delete", "ca_provider", "a CA provider was deleted"},
    AuditActionSpec{"ca_provider.refresh", "ca_provider",
                    "a CA provider's directory was read again"},
    AuditActionSpec{"acme_account.create", "acme_account", "an ACME account was added"},
    AuditActionSpec{"acme_account.update", "acme_account", "an ACME account was changed"},
    AuditActionSpec{"acme_account.delete", "acme_account", "an ACME account was deleted"},
    AuditActionSpec{"acme_account.validate", "acme_account", "an ACME account was checked"},
    AuditActionSpec{"acme_account.key_rollover", "acme_account",
                    "an ACME account's key was rolled over"},
    AuditActionSpec{"dns_credential.create", "dns_credential", "a DNS credential was added"},
    AuditActionSpec{"dns_credential.update", "dns_credential", "a DNS credential was changed"},
    AuditActionSpec{"dns_credential.delete", "dns_credential", "a DNS credential was deleted"},
    AuditActionSpec{"dns_credential.test", "dns_credential", "a DNS credential was tested"},
    AuditActionSpec{"zone.create", "zone", "a zone was added"},
    AuditActionSpec{"zone.update", "zone", "a zone was changed"},
    AuditActionSpec{"zone.delete", "zone", "a zone was deleted"},
    AuditActionSpec{"credential.create", "credential", "a credential was added"},
    AuditActionSpec{"credential.update", "credential", "a credential was changed"},
    AuditActionSpec{"credential.delete", "credential", "a credential was deleted"},
    AuditActionSpec{"ssh_host_key.read", "ssh_host_key", "an SSH host key was fetched"},
    AuditActionSpec{"module_config.create", "module_config", "a distribution module was added"},
    AuditActionSpec{"module_config.update", "module_config", "a distribution module was changed"},
    AuditActionSpec{"module_config.delete", "module_config", "a distribution module was deleted"},
    AuditActionSpec{"module_config.health", "module_config",
                    "a distribution module's targets were checked"},
    AuditActionSpec{"notification_channel.create", "notification_channel",
                    "a notification channel was added"},
    AuditActionSpec{"notification_channel.update", "notification_channel",
                    "a notification channel was changed"},
    AuditActionSpec{"notification_channel.delete", "notification_channel",
                    "a notification channel was deleted"},
    AuditActionSpec{"notification_channel.test", "notification_channel",
                    "a test notification was sent"},
    AuditActionSpec{"notification_rule.create", "notification_rule",
                    "a notification rule was added"},
    AuditActionSpec{"notification_rule.update", "notification_rule",
                    "a notification rule was changed"},
    AuditActionSpec{"notification_rule.delete", "notification_rule",
                    "a notification rule was deleted"},
    AuditActionSpec{"audit.checkpoint", "audit_log", "the chain's head was recorded in the log"},
};

}  // namespace

std::span<const AuditActionSpec> auditActions() noexcept {
  return kActions;
}

const AuditActionSpec* findAuditAction(std::string_view action) noexcept {
  const auto* found = std::find_if(kActions.begin(), kActions.end(),
                                   [&](const AuditActionSpec& a) { return a.action == action; });
  return found == kActions.end() ? nullptr : found;
}

}  // namespace certsteward::domain

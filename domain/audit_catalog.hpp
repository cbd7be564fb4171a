// Every action the audit log records, with the type of resource it names: the list the audit
// filters offer (GET /api/v1/catalog, `audit_actions`). The test doubles of the audit log refuse
// an action missing here (testing/catalog_checked_audit_log.hpp), and tests/unit/audit_test.cpp
// finds each one listed in the services that record it, so the list stays true both ways.
#pragma once

#include <span>
#include <string_view>

namespace certsteward::domain {

struct AuditActionSpec {
  std::string_view action;         // "certificate.create"
  std::string_view resource_type;  // "certificate"
  std::string_view summary;        // what happened, in a few words
};

// In a stable order: grouped by resource type, then as a person would read them.
std::span<const AuditActionSpec> auditActions() noexcept;

// The entry of `action`, or nullptr when the log never records it.
const AuditActionSpec* findAuditAction(std::string_view action) noexcept;

}  // namespace certsteward::domain

// The shapes of the REST API v1 the UI reads (docs/api.md). Times are RFC 3339 strings.

export type OrgRole = "owner" | "admin" | "operator" | "viewer";
export type ProjectRole = "admin" | "operator" | "viewer";

export interface Paged {
  total: number;
  page: number;
  page_size: number;
}

export interface User {
  id: string;
  username: string;
  org_role: OrgRole;
  auth_source?: "local" | "ldap" | "oidc";
  disabled?: boolean;
  totp_enabled?: boolean;
  created_at?: string;
}

export interface AccessRule {
  action: string;
  org_role: OrgRole | null;
  project_role: ProjectRole | null;
}

export interface Me {
  user: User;
  org_role: OrgRole;
  org: { name: string };
  memberships: { project_id: string; role: ProjectRole }[];
  access_rules: AccessRule[];
}

export interface Profile {
  time_zone: string;
  language: string;
  notifications: Record<string, "on" | "off">;
}

export interface LoginResponse {
  otp_required?: boolean;
  otp_setup_required?: boolean;
  otp_session_id?: string;
  user?: User;
}

export interface Project {
  id: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface Member {
  project_id: string;
  user_id: string;
  role: ProjectRole;
  created_at: string;
}

export const certificateStatuses = [
  "issuing",
  "active",
  "renewal_pending",
  "renewal_in_progress",
  "renewal_failed",
] as const;
export type CertificateStatus = (typeof certificateStatuses)[number];

export const keyTypes = ["ecdsa_p256", "ecdsa_p384", "rsa_2048", "rsa_3072", "rsa_4096"] as const;

export interface Certificate {
  id: string;
  project_id: string;
  common_name: string;
  sans: string[];
  key_type: string;
  status: CertificateStatus;
  auto_renew: boolean;
  issuer_type: string;
  acme_account_id: string;
  issued_at: string | null;
  expires_at: string | null;
  next_renewal_at: string | null;
  renewal_threshold_days: number;
  renewal_attempts: number;
  last_error: string | null;
  failed_renewal: boolean;
  distribution_pending: boolean;
  serial_number: string | null;
  created_at: string;
  updated_at: string;
}

export type JobStatus = "pending" | "active" | "completed" | "failed" | "dead" | "cancelled";

export interface Job {
  id: string;
  project_id: string;
  type: string;
  status: JobStatus;
  lane: string;
  error_msg: string | null;
  attempts: number;
  max_attempts: number;
  certificate_id: string | null;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
  next_run_at: string | null;
  cancel_requested: boolean;
  finished_at: string | null;
}

export interface JobLog {
  ts: string;
  level: string;
  message: string;
}

export interface ProjectEvent {
  id: string;
  kind: string;
  resource_id: string;
  message: string;
  at: string;
}

export interface TargetResult {
  target_name: string;
  status: string;
  error?: string;
  error_code?: string;
  duration_ms?: number;
  detail?: string;
  changed?: boolean;
  rolled_back?: boolean;
  rollback_error?: string;
  steps?: { name: string; ok: boolean; message: string }[];
}

export interface Distribution {
  id: string;
  project_id: string;
  certificate_id: string;
  module_config_id: string;
  last_status: string | null;
  last_action: string | null;
  last_error: string | null;
  last_run_at: string | null;
  deployed_serial: string | null;
  previous_serial: string | null;
  last_target_results: TargetResult[];
  created_at: string;
}

export interface AuditEntry {
  id: string;
  timestamp: string;
  action: string;
  resourceType: string;
  resource_id: string;
  project_id: string | null;
  actor_user_id: string | null;
  actor_username: string | null;
  ip: string;
  request_id: string;
  details: string;
  checksum: string;
  sequence: number;
}

export interface AuditVerification {
  verified: number;
  intact: boolean;
  breaks?: { entry_id: string; reason: string }[];
  [key: string]: unknown;
}

export interface LicenseStatus {
  valid: boolean;
  plan: string;
  plan_name?: string;
  cert_limit: number;
  used?: number;
  expires_at: string | null;
  license_key: string | null;
  in_grace_period?: boolean;
  reason?: string;
  [key: string]: unknown;
}

export type LdapGroupMapping = {
  group_dn: string;
  org_role: string;
};

export interface LdapSettings {
  enabled: boolean;
  host: string;
  port: number;
  security: "starttls" | "ldaps" | "none";
  ca_bundle: string;
  bind_dn: string;
  bind_password_configured: boolean;
  base_dn: string;
  user_filter: string;
  username_attribute: string;
  email_attribute: string;
  group_base_dn: string;
  group_filter: string;
  member_attribute: string;
  group_mappings: LdapGroupMapping[];
  default_org_role: string | null;
  deny_without_group: boolean;
  connect_timeout_seconds: number;
  operation_timeout_seconds: number;
}

export interface OidcSettings {
  enabled: boolean;
  display_name: string;
  issuer: string;
  client_id: string;
  client_secret_configured: boolean;
  redirect_uri: string;
  scopes: string[];
  username_claim: string;
  groups_claim: string;
  group_mappings: { group: string; org_role: string }[];
  default_org_role: string | null;
  deny_without_group: boolean;
  ca_bundle: string;
}

export interface LdapTest {
  ok: boolean;
  steps: { step: string; ok: boolean; message: string }[];
}

// A configuration resource of a project (ACME account, DNS credential, zone, ...): the common
// fields and whatever its kind adds.
export interface Resource {
  id: string;
  project_id: string;
  created_at: string;
  updated_at: string;
  name?: string;
  [field: string]: unknown;
}

export interface DnsTest {
  ok: boolean;
  zone?: string;
  record?: string;
  steps: { name: string; ok: boolean; message: string }[];
}

export interface Delivery {
  id: string;
  channel_id: string;
  rule_id: string;
  event_id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

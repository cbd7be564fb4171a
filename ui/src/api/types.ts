// The API's shapes under the names the pages use: each one a type of the schema generated from
// docs/openapi.yaml (schema.gen.ts), never a copy. Lists the UI shows in an order of its own are
// checked to hold every value of the API's type.
import type { CertificateStatus, Event, KeyType, ProjectPage } from "./schema.gen";

export type {
  AcmeAccount,
  AuditEntry,
  AuditVerification,
  CaPresets,
  CaProvider,
  CaProviderCreate,
  CaProviderUpdate,
  Catalog,
  CatalogField,
  CatalogKind,
  Certificate,
  CertificateCreate,
  CertificatePatch,
  CertificateStatus,
  CertificateSummary,
  Delivery,
  Distribution,
  DnsCredentialTest,
  DownloadRequest,
  DryRun,
  IssuanceSettings,
  Job,
  JobLogEntry,
  JobResponse,
  KeyType,
  LdapSettings,
  LdapSettingsInput,
  LdapTestResult,
  LicenseStatus,
  Me,
  Member,
  ModuleConfig,
  ModuleHealth,
  OidcOffer,
  OidcSettings,
  OidcSettingsInput,
  OrgRole,
  Profile,
  Project,
  ProjectRole,
  TargetResult,
  TotpSetup,
  User,
  ZoneRateLimits,
} from "./schema.gen";

/** An event of a project (the schema's `Event`, renamed so that it is not the DOM's). */
export type ProjectEvent = Event;

/** What every page of a list carries beside its items. */
export type Paged = Pick<ProjectPage, "total" | "page" | "page_size">;

// A list of every value of `T`, in the order the UI shows them: a value the API adds or drops is
// a type error where the list is written. everyValue<KeyType>()(["ecdsa_p256", ...]).
export function everyValue<T extends string>() {
  return <const L extends readonly T[]>(list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> })): L => list;
}

export const certificateStatuses = everyValue<CertificateStatus>()(["issuing", "active", "renewal_pending", "renewal_in_progress", "renewal_failed"]);

export const keyTypes = everyValue<KeyType>()(["ecdsa_p256", "ecdsa_p384", "rsa_2048", "rsa_3072", "rsa_4096"]);

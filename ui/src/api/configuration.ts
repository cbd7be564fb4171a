// A project's configuration resources (ACME accounts, DNS credentials, zones, credentials,
// distribution modules, notification channels and rules), listed, created, changed and deleted
// the same way whatever their kind: the configuration page is one table of fields per kind. The
// checks of each kind are in its own module (acme, dns, distributions, notifications).
import { call, type BodyOf, type QueryOf, type ResponseOf } from "./client";
import type { Paged } from "./types";

export type ConfigKind = "acme-accounts" | "dns-credentials" | "zones" | "credentials" | "modules" | "notification-channels" | "notification-rules";

type ListOperation<K extends ConfigKind> = `GET /projects/{project_id}/${K}`;
type ItemsField<K extends ConfigKind> = Exclude<keyof ResponseOf<ListOperation<K>>, keyof Paged>;
type Item<K extends ConfigKind> = ResponseOf<ListOperation<K>>[ItemsField<K>] extends (infer T)[] ? T : never;

// A resource of any kind, its fields also read by name (the page's table names them).
export type ConfigResource = { [K in ConfigKind]: Item<K> }[ConfigKind] & { [field: string]: unknown };

// The field of each kind's list page that holds the items (the schema's name, checked).
const itemsField: { [K in ConfigKind]: ItemsField<K> } = {
  "acme-accounts": "acme_accounts",
  "dns-credentials": "dns_credentials",
  zones: "zones",
  credentials: "credentials",
  modules: "modules",
  "notification-channels": "notification_channels",
  "notification-rules": "notification_rules",
};

// A body made from the page's fields; the server checks it against the kind's rules.
export type ConfigBody = Record<string, unknown>;

export async function listConfig(projectId: string, kind: ConfigKind, query: QueryOf<ListOperation<ConfigKind>>): Promise<Paged & { items: ConfigResource[] }> {
  const page = await call(`GET /projects/{project_id}/${kind}`, { params: { project_id: projectId }, query });
  const items = (page as unknown as Record<string, ConfigResource[] | undefined>)[itemsField[kind]] ?? [];
  return { items, total: page.total, page: page.page, page_size: page.page_size };
}

export function createConfig(projectId: string, kind: ConfigKind, body: ConfigBody) {
  return call(`POST /projects/{project_id}/${kind}`, { params: { project_id: projectId }, body: body as BodyOf<`POST /projects/{project_id}/${ConfigKind}`> });
}

// Changes the fields the body names; the others keep their values.
export function updateConfig(projectId: string, kind: ConfigKind, id: string, body: ConfigBody) {
  return call(`PATCH /projects/{project_id}/${kind}/{id}`, { params: { project_id: projectId, id }, body: body as BodyOf<`PATCH /projects/{project_id}/${ConfigKind}/{id}`> });
}

export function deleteConfig(projectId: string, kind: ConfigKind, id: string) {
  return call(`DELETE /projects/{project_id}/${kind}/{id}`, { params: { project_id: projectId, id } });
}

// The one way the UI talks to the server: same-origin fetch with the session cookies, the
// X-CSRF-Token header on every mutation, and on an expired access token one refresh and one
// retry of the request. Tokens stay in HttpOnly cookies; no token is ever put in web storage.
// A call names an operation of docs/openapi.yaml ("GET /projects/{project_id}"), so its path,
// parameters, body and answer are those of the generated schema.gen.ts. Only the modules of this
// folder call; pages call those modules (ui/tests/api-boundary.mjs checks it).
import type { Operations } from "./schema.gen";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

interface RequestOptions {
  query?: Query | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  raw?: boolean; // resolve to the Response (downloads)
}

const base = "/api/v1";
let sessionEnded: (() => void) | undefined;

// Called when the session cannot be renewed (the login page takes over).
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

export function cookie(name: string): string | undefined {
  for (const part of document.cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function queryString(query?: Query): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

const mutation = (method: string) => method !== "GET" && method !== "HEAD";

function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const csrf = cookie("csrf_token");
  if (mutation(method) && csrf) headers["X-CSRF-Token"] = csrf;
  return fetch(base + path + queryString(options.query), {
    method,
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: unknown;
  let message = `${response.status} ${response.statusText}`;
  let code: string | undefined;
  try {
    body = await response.json();
    const o = body as { error?: unknown; message?: unknown; code?: unknown };
    if (typeof o.message === "string" && o.message) message = o.message;
    else if (typeof o.error === "string" && o.error) message = o.error;
    if (typeof o.code === "string") code = o.code;
  } catch {
    if (response.status === 502 || response.status === 504) message = "the server cannot be reached";
  }
  return new ApiError(response.status, message, code, body);
}

// One refresh at a time, across tabs too: a refresh token is single use, and two refreshes
// with the same cookie look like a stolen token and end the session (spec, reuse detection).
// When a refresh finished after a failing request was sent (in this tab or, through
// localStorage, another one), the request is only retried: the cookies are already new. Only a
// time is stored, never a token.
const refreshedAtKey = "certsteward.refreshedAt";
let refreshedAt = 0;
let refreshing: Promise<boolean> | undefined;

function lastRefresh(): number {
  const shared = Number(localStorage.getItem(refreshedAtKey) ?? "0");
  return Math.max(refreshedAt, Number.isFinite(shared) ? shared : 0);
}

async function refreshOnce(sentAt: number): Promise<boolean> {
  const run = async () => {
    if (lastRefresh() > sentAt) return true;
    const response = await send("POST", "/auth/refresh", {});
    if (!response.ok) return false;
    refreshedAt = Date.now();
    localStorage.setItem(refreshedAtKey, String(refreshedAt));
    return true;
  };
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? locks.request("certsteward-refresh", run) : run();
}

// Renews the session for a request sent at `sentAt` that met an expired token.
export function refreshSession(sentAt: number): Promise<boolean> {
  if (lastRefresh() > sentAt) return Promise.resolve(true);
  refreshing ??= refreshOnce(sentAt).finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const sentAt = Date.now();
  let response = await send(method, path, options);
  const isAuthCall = path.startsWith("/auth/login") || path.startsWith("/auth/otp") || path.startsWith("/auth/refresh");
  if (response.status === 401 && !isAuthCall) {
    const error = await errorOf(response.clone());
    if (error.code === "TOKEN_EXPIRED" && (await refreshSession(sentAt))) {
      response = await send(method, path, options);
    }
    if (response.status === 401) {
      sessionEnded?.();
      throw await errorOf(response);
    }
  }
  if (!response.ok) throw await errorOf(response);
  if (options.raw) return response as unknown as T;
  if (response.status === 204) return undefined as T;
  const type = response.headers.get("Content-Type") ?? "";
  if (!type.includes("json")) return (await response.text()) as unknown as T;
  return (await response.json()) as T;
}

// An operation of the API: "METHOD path", the path under /api/v1 with {name} for each parameter.
export type Operation = keyof Operations;
export type ResponseOf<K extends Operation> = Operations[K]["response"];
export type BodyOf<K extends Operation> = Operations[K]["body"];

// A query's names are the operation's; a value may also be text (a filter read from the page's
// address, which the server checks), and an empty one is left out.
type LooseQuery<Q> = { [P in keyof Q]?: Q[P] | string | null };
export type QueryOf<K extends Operation> = LooseQuery<Operations[K]["query"]>;

// What a call sends: the path parameters, query, headers and body the operation takes, and only
// those; what the operation requires is required.
export type CallRequest<K extends Operation> = ([Operations[K]["params"]] extends [never] ? { params?: never } : { params: Operations[K]["params"] }) &
  ([Operations[K]["query"]] extends [never] ? { query?: never } : { query?: QueryOf<K> }) &
  ([Operations[K]["headers"]] extends [never] ? { headers?: never } : { headers?: Operations[K]["headers"] }) &
  ([BodyOf<K>] extends [never] ? { body?: never } : undefined extends BodyOf<K> ? { body?: BodyOf<K> } : { body: BodyOf<K> });

// The request may be left out when nothing in it is required.
type CallArguments<K extends Operation> = object extends CallRequest<K> ? [request?: CallRequest<K>] : [request: CallRequest<K>];

// The method, path (parameters put in) and options of a call.
function prepare(op: Operation, r: { params?: unknown; query?: unknown; headers?: unknown; body?: unknown } = {}, raw = false): [string, string, RequestOptions] {
  const space = op.indexOf(" ");
  const params = (r.params ?? {}) as Record<string, string>;
  const path = op.slice(space + 1).replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
  return [op.slice(0, space), path, { query: r.query as Query | undefined, headers: r.headers as Record<string, string> | undefined, body: r.body, raw }];
}

// Calls an operation and resolves to its answer (undefined for 204).
export function call<K extends Operation>(op: K, ...[r]: CallArguments<K>): Promise<ResponseOf<K>> {
  const [method, path, options] = prepare(op, r);
  return request<ResponseOf<K>>(method, path, options);
}

// Calls an operation and resolves to the Response itself (a file to save).
export function callRaw<K extends Operation>(op: K, ...[r]: CallArguments<K>): Promise<Response> {
  const [method, path, options] = prepare(op, r, true);
  return request<Response>(method, path, options);
}

// The address of a GET operation, for the browser to go to (a link, a redirect URI).
export function address<K extends Operation & `GET ${string}`>(op: K, ...[r]: CallArguments<K>): string {
  const [, path, options] = prepare(op, r);
  return base + path + queryString(options.query);
}

// The words a person reads for an error from the API.
// The field a 422 names ("settings.url", "targets[0].settings.host", "secret"), if any.
export function errorField(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 422) return undefined;
  const field = (error.body as { field?: unknown } | null)?.field;
  return typeof field === "string" ? field : undefined;
}

export function describe(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.status) {
      case 403:
        return `Not allowed: ${error.message}`;
      case 404:
        return `Not found: ${error.message}`;
      case 409:
        return `Cannot do that now: ${error.message}`;
      case 413:
        return "The request is too large.";
      case 429:
        return "Too many attempts; wait a minute and try again.";
      case 503:
        return `Unavailable: ${error.message}`;
      default:
        return error.status >= 500 ? `The server failed (${error.status}): ${error.message}` : error.message;
    }
  }
  if (error instanceof TypeError) return "The server cannot be reached. Check the connection and try again.";
  return error instanceof Error ? error.message : String(error);
}

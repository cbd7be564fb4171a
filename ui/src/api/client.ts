// The one way the UI talks to the server: same-origin fetch with the session cookies, the
// X-CSRF-Token header on every mutation, and on an expired access token one refresh and one
// retry of the request. Tokens stay in HttpOnly cookies; no token is ever put in web storage.

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

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
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

export function queryString(query?: Query): string {
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

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
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

export const api = {
  get: <T>(path: string, query?: Query) => request<T>("GET", path, { query }),
  post: <T>(path: string, body?: unknown, query?: Query) => request<T>("POST", path, { body, query }),
  put: <T>(path: string, body?: unknown) => request<T>("PUT", path, { body }),
  patch: <T>(path: string, body?: unknown) => request<T>("PATCH", path, { body }),
  del: (path: string) => request<void>("DELETE", path),
};

// The words a person reads for an error from the API.
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

// Real answers of the packaged server against docs/openapi.yaml: starts `certsteward serve`
// (SQLite store in a temporary directory, 127.0.0.1, port 0, a bootstrap owner from the
// environment), makes a broad set of requests — successes and the error cases 400, 401, 403,
// 404, 409, 413, 415, 422, 429 — and checks each answer: its operation is in the document, its
// status is one the operation documents, and its body is valid against the schema the document
// gives for that status and media type (a 204 or a response without content: an empty body).
// Each request also names the status expected, so a run that only ever got 401s cannot pass.
// Usage: node tests/e2e/openapi_responses.mjs BINARY [DOCUMENT]
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDocument, makeValidator, pointer, resolveRef } from './openapi_common.mjs';

const [binary, documentPath] = process.argv.slice(2);
if (!binary) {
  console.error('usage: openapi_responses.mjs BINARY [DOCUMENT]');
  process.exit(2);
}

const doc = loadDocument(documentPath);
const validatorAt = makeValidator(doc);
const templates = Object.keys(doc.paths).map((t) => ({ t, segments: t.split('/').filter(Boolean) }));

// The document's path template of a concrete path: literal segments beat parameters
// (/audit-logs/head over /audit-logs/{entry_id}).
function templateOf(path) {
  const segments = path.split('?')[0].split('/').filter(Boolean);
  let best = null;
  let bestLiterals = -1;
  for (const { t, segments: want } of templates) {
    if (want.length !== segments.length) continue;
    let literals = 0;
    let ok = true;
    for (let i = 0; i < want.length && ok; i++) {
      if (/^\{.+\}$/.test(want[i])) continue;
      ok = want[i] === segments[i];
      literals++;
    }
    if (ok && literals > bestLiterals) {
      best = t;
      bestLiterals = literals;
    }
  }
  return best;
}

// ---- the server ----
const work = mkdtempSync(join(tmpdir(), 'certsteward-openapi-'));
const hex = (n) => randomBytes(n).toString('hex');
writeFileSync(
  join(work, 'conf'),
  [
    'server.listen = 127.0.0.1:0',
    `store.url = sqlite://${work}/db.sqlite`,
    'auth.bcrypt_cost = 10',
    // This script plays a proxy in front of the server, and its receivers listen on loopback.
    'server.trusted_proxies = 127.0.0.1',
    'network.outbound_allow = 127.0.0.0/8, ::1',
    `jwt.secret = ${hex(32)}`,
    `secrets.key = ${hex(32)}`,
    '',
  ].join('\n'),
);
const ownerPassword = `Owner-${hex(8)}`;
const logPath = join(work, 'log');
const logFd = openSync(logPath, 'w');
const server = spawn(binary, ['serve', '--config', join(work, 'conf')], {
  env: {
    ...process.env,
    CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME: 'owner',
    CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD: ownerPassword,
  },
  stdio: ['ignore', logFd, logFd],
});
let exited = false;
server.on('exit', () => {
  exited = true;
});
const cleanup = () => {
  if (!exited) server.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(1)); // cleanup runs

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let port = null;
for (let i = 0; i < 300 && !port && !exited; i++) {
  const m = /listening on 127\.0\.0\.1:(\d+)/.exec(readFileSync(logPath, 'utf8'));
  if (m) port = Number(m[1]);
  else await sleep(100);
}
if (!port) {
  console.error(`FAIL: the server did not start:\n${readFileSync(logPath, 'utf8')}`);
  process.exit(1);
}
const base = `http://127.0.0.1:${port}`;

// ---- requests and checks ----
const failures = [];
let checked = 0; // responses whose operation, status and body were checked
let requests = 0;
const covered = new Set();
let clientNumber = 0;

// One request, checked against the document. `expect`: the status (or statuses) this call
// should get. Options: token, body (JSON), raw (a string body), contentType, headers, cookies.
async function call(method, path, expect, options = {}) {
  requests++;
  const headers = { ...(options.headers ?? {}) };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['Content-Type'] = options.contentType ?? 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = options.contentType ?? 'application/json';
  }
  if (options.cookies) headers.Cookie = Object.entries(options.cookies).map(([k, v]) => `${k}=${v}`).join('; ');
  const label = `${method} ${path}`;
  let res;
  try {
    res = await fetch(base + path, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(60000) });
  } catch (e) {
    failures.push(`${label}: request failed: ${e.message}`);
    return { status: 0, json: null, headers: new Headers() };
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  const out = { status: res.status, headers: res.headers, text, json: null };
  const expected = [expect].flat();
  if (!expected.includes(res.status)) {
    failures.push(`${label}: status ${res.status}, expected ${expected.join(' or ')}: ${text.slice(0, 300)}`);
  }
  const template = templateOf(path);
  const opMethod = method === 'HEAD' ? 'get' : method.toLowerCase();
  const op = template && doc.paths[template][opMethod];
  if (!op) {
    failures.push(`${label}: no operation of the document matches`);
    return out;
  }
  const response = op.responses?.[String(res.status)];
  if (!response) {
    failures.push(`${label}: status ${res.status} is not documented for ${opMethod.toUpperCase()} ${template}`);
    return out;
  }
  covered.add(`${opMethod.toUpperCase()} ${template}`);
  // A body the server accepted must also be one the document accepts.
  if (res.status < 300 && options.body !== undefined) {
    const requestBody = op.requestBody && resolveRef(doc, op.requestBody);
    if (!requestBody?.content?.['application/json']) {
      failures.push(`${label}: the server accepted a JSON body, the document gives none for the operation`);
    } else {
      const at = op.requestBody.$ref
        ? op.requestBody.$ref.slice(1)
        : `/${pointer('paths', template, opMethod, 'requestBody')}`;
      const validateRequest = validatorAt(`${at}/${pointer('content', 'application/json', 'schema')}`);
      if (!validateRequest(options.body)) {
        const errors = validateRequest.errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
        failures.push(`${label}: the request body the server accepted does not match the document: ${errors.join('; ')}`);
      }
    }
  }
  const resolved = resolveRef(doc, response);
  const content = resolved.content ?? {};
  const media = Object.keys(content);
  if (media.length === 0) {
    if (bytes.length !== 0) failures.push(`${label} ${res.status}: the document gives no content, the server sent ${bytes.length} bytes`);
    checked++;
    return out;
  }
  const type = res.headers.get('content-type') ?? '';
  const chosen = media.find((m) => m === type) ?? media.find((m) => m === type.split(';')[0].trim());
  if (!chosen) {
    failures.push(`${label} ${res.status}: Content-Type '${type}' is not one of ${media.join(', ')}`);
    return out;
  }
  const schemaBase = response.$ref ? response.$ref.slice(1) : `/${pointer('paths', template, opMethod, 'responses', String(res.status))}`;
  const validate = validatorAt(`${schemaBase}/${pointer('content', chosen, 'schema')}`);
  let value = text;
  if (chosen === 'application/json') {
    try {
      value = JSON.parse(text);
    } catch {
      failures.push(`${label} ${res.status}: not JSON: ${text.slice(0, 200)}`);
      return out;
    }
    out.json = value;
  }
  if (!validate(value)) {
    const errors = validate.errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`);
    failures.push(`${label} ${res.status}: the body does not match the document: ${errors.join('; ')}\n    body: ${text.slice(0, 400)}`);
  }
  for (const name of Object.keys(resolved.headers ?? {})) {
    if (['WWW-Authenticate', 'Location', 'Retry-After'].includes(name) && res.status !== 503 && !res.headers.get(name)) {
      failures.push(`${label} ${res.status}: no ${name} header`);
    }
  }
  checked++;
  return out;
}

// A login from its own client address (the per-address limit is 10 a minute; 127.0.0.1 is
// configured as a trusted proxy above, so X-Forwarded-For counts).
const nextAddress = () => `203.0.113.${++clientNumber}`;
async function login(username, password, expect = 200) {
  const r = await call('POST', '/api/v1/auth/login', expect, { body: { username, password }, headers: { 'X-Forwarded-For': nextAddress() } });
  return r;
}
const cookiesOf = (r) => Object.fromEntries(r.headers.getSetCookie().map((c) => c.split(';')[0].split('=')).map(([k, ...v]) => [k, v.join('=')]));

try {
  // Operational.
  await call('GET', '/healthz', 200);
  await call('GET', '/readyz', 200);
  await call('GET', '/metrics', 200);

  // Login and its errors.
  const xff = { 'X-Forwarded-For': '198.51.100.1' };
  await call('POST', '/api/v1/auth/login', 400, { raw: '{"username": "owner",', headers: xff });
  await call('POST', '/api/v1/auth/login', 415, { raw: 'username=owner', contentType: 'application/x-www-form-urlencoded', headers: xff });
  await call('POST', '/api/v1/auth/login', 400, { body: { username: 'owner' }, headers: xff });
  await login('owner', 'not-the-password', 401);
  for (let i = 0; i < 8; i++) {
    const r = await call('POST', '/api/v1/auth/login', [401, 429], { body: { username: 'nobody', password: 'wrong-password' }, headers: { 'X-Forwarded-For': nextAddress() } });
    if (r.status === 429) break;
    if (i === 7) failures.push('8 failed logins for one username were never rate limited (429)');
  }
  const ownerLogin = await login('owner', ownerPassword);
  const owner = ownerLogin.json?.access_token;
  if (!owner) throw new Error('the owner cannot log in');
  const ownerCookies = cookiesOf(ownerLogin);

  // Authentication errors, me, profile.
  await call('GET', '/api/v1/auth/me', 401);
  await call('GET', '/api/v1/auth/me', 401, { headers: { Authorization: 'Basic b3duZXI6eA==' } });
  await call('GET', '/api/v1/auth/me', 401, { token: 'not.a.token' });
  await call('GET', '/api/v1/auth/me', 200, { token: owner });
  await call('GET', '/api/v1/auth/me/profile', 200, { token: owner });
  await call('PATCH', '/api/v1/auth/me/profile', 200, { token: owner, body: { time_zone: 'Europe/Berlin', notifications: { 'cert.issued': 'off' } } });
  await call('PATCH', '/api/v1/auth/me/profile', 422, { token: owner, body: { time_zone: 'Mars/Olympus_Mons' } });
  await call('PATCH', '/api/v1/auth/me/profile', 400, { token: owner, body: { notifications: 'off' } });
  await call('POST', '/api/v1/auth/totp/setup', 200, { token: owner });
  await call('POST', '/api/v1/auth/totp/enable', 422, { token: owner, body: { code: '00000a' } });
  await call('POST', '/api/v1/auth/totp/disable', 409, { token: owner, body: { code: '000000' } });
  await call('POST', '/api/v1/auth/otp/verify', 401, { body: { code: '123456' } });
  await call('POST', '/api/v1/auth/otp/verify', 401, { body: { code: '123456' }, headers: { 'X-OTP-Session-ID': 'forged' } });

  // Refresh: once, then the same token again (reuse).
  const second = await login('owner', ownerPassword);
  await call('POST', '/api/v1/auth/refresh', 200, { body: { refresh_token: second.json?.refresh_token } });
  await call('POST', '/api/v1/auth/refresh', 401, { body: { refresh_token: second.json?.refresh_token } });
  await call('POST', '/api/v1/auth/refresh', 401, { body: {} });

  // Single sign-on (not configured).
  await call('GET', '/api/v1/auth/oidc', 200);
  await call('GET', '/api/v1/auth/oidc/login', 302);
  await call('GET', '/api/v1/auth/oidc/callback?code=x&state=y', 302);

  // Users.
  const viewerPassword = `Viewer-${hex(6)}`;
  const operatorPassword = `Operator-${hex(6)}`;
  const viewerUser = await call('POST', '/api/v1/users', 201, { token: owner, body: { username: 'vera.viewer', password: viewerPassword } });
  const operatorUser = await call('POST', '/api/v1/users', 201, { token: owner, body: { username: 'otto.operator', password: operatorPassword, org_role: 'operator' } });
  await call('POST', '/api/v1/users', 409, { token: owner, body: { username: 'vera.viewer', password: viewerPassword } });
  await call('POST', '/api/v1/users', 422, { token: owner, body: { username: 'shorty', password: 'short' } });
  await call('POST', '/api/v1/users', 400, { token: owner, body: { username: 'rolf', password: 'long-enough-1', org_role: 'emperor' } });
  const users = await call('GET', '/api/v1/users?page=1&page_size=10', 200, { token: owner });
  await call('GET', '/api/v1/users?page=0', 400, { token: owner });
  const viewerId = viewerUser.json?.user?.id;
  const operatorId = operatorUser.json?.user?.id;
  const ownerId = users.json?.users?.find((u) => u.username === 'owner')?.id;
  await call('GET', `/api/v1/users/${viewerId}`, 200, { token: owner });
  await call('GET', '/api/v1/users/no-such-user', 404, { token: owner });
  await call('PATCH', `/api/v1/users/${operatorId}`, 200, { token: owner, body: { disabled: false } });
  await call('PATCH', `/api/v1/users/${ownerId}`, 409, { token: owner, body: { disabled: true } });
  await call('PATCH', `/api/v1/users/${ownerId}`, 409, { token: owner, body: { password: 'without the current one' } });
  await call('PATCH', `/api/v1/users/${operatorId}`, 400, { token: owner, body: { disabled: 'no' } });

  // Projects and members.
  const project = await call('POST', '/api/v1/projects', 201, { token: owner, body: { name: 'Shop', description: 'the web shop' }, headers: { 'Idempotency-Key': 'create-shop-1' } });
  await call('POST', '/api/v1/projects', 201, { token: owner, body: { name: 'Shop', description: 'the web shop' }, headers: { 'Idempotency-Key': 'create-shop-1' } });
  await call('POST', '/api/v1/projects', 409, { token: owner, body: { name: 'Shop 2' }, headers: { 'Idempotency-Key': 'create-shop-1' } });
  await call('POST', '/api/v1/projects', 400, { token: owner, body: { name: 'Shop 3' }, headers: { 'Idempotency-Key': 'bad key' } });
  await call('POST', '/api/v1/projects', 409, { token: owner, body: { name: 'Shop' } });
  await call('POST', '/api/v1/projects', 422, { token: owner, body: { name: ' Shop' } });
  await call('POST', '/api/v1/projects', 400, { token: owner, raw: '[1, 2]' });
  await call('POST', '/api/v1/projects', 413, { token: owner, raw: JSON.stringify({ name: 'big', description: 'x'.repeat(1100 * 1024) }) });
  const p = project.json?.project?.id;
  if (!p) throw new Error('no project');
  const pp = `/api/v1/projects/${p}`;
  await call('GET', '/api/v1/projects', 200, { token: owner });
  await call('GET', pp, 200, { token: owner });
  await call('GET', '/api/v1/projects/no-such-project', 404, { token: owner });
  await call('PATCH', pp, 200, { token: owner, body: { description: 'the web shop, EU' } });
  await call('PATCH', pp, 422, { token: owner, body: { name: '' } });
  await call('PUT', `${pp}/members/${operatorId}`, 200, { token: owner, body: { role: 'operator' } });
  await call('PUT', `${pp}/members/${operatorId}`, 400, { token: owner, body: { role: 'king' } });
  await call('GET', `${pp}/members`, 200, { token: owner });

  // A cookie session: a mutation without X-CSRF-Token is 403, with it the change is made.
  await call('PATCH', pp, 403, { cookies: ownerCookies, body: { description: 'by cookie' } });
  await call('PATCH', pp, 200, { cookies: ownerCookies, body: { description: 'by cookie' }, headers: { 'X-CSRF-Token': ownerCookies.csrf_token } });

  // Lower roles.
  const viewer = (await login('vera.viewer', viewerPassword)).json?.access_token;
  const operator = (await login('otto.operator', operatorPassword)).json?.access_token;
  await call('GET', '/api/v1/users', 403, { token: viewer });
  await call('POST', '/api/v1/projects', 403, { token: viewer, body: { name: 'Mine' } });
  await call('GET', pp, 404, { token: viewer });
  await call('GET', '/api/v1/auth/me', 200, { token: viewer });
  await call('GET', '/api/v1/license/status', 200, { token: viewer });
  await call('POST', '/api/v1/license/activate', 403, { token: viewer, body: { license_key: 'x' } });
  await call('GET', '/api/v1/settings/ldap', 403, { token: viewer });
  await call('GET', '/api/v1/audit-logs', 403, { token: operator });
  await call('GET', pp, 200, { token: operator });
  await call('POST', `${pp}/acme-accounts`, 403, { token: operator, body: { name: 'x', directory_url: 'https://127.0.0.1:1/directory' } });

  // Configuration resources.
  const account = await call('POST', `${pp}/acme-accounts`, 201, { token: owner, body: { name: 'Local CA', directory_url: 'https://127.0.0.1:1/directory', email: 'ops@example.test', eab_kid: 'kid', eab_hmac_key: 'c2VjcmV0' } });
  const accountId = account.json?.acme_account?.id;
  await call('POST', `${pp}/acme-accounts`, 400, { token: owner, body: { directory_url: 'https://127.0.0.1:1/directory' } });
  await call('GET', `${pp}/acme-accounts`, 200, { token: owner });
  await call('GET', `${pp}/acme-accounts/${accountId}`, 200, { token: owner });
  await call('PATCH', `${pp}/acme-accounts/${accountId}`, 200, { token: owner, body: { email: 'pki@example.test' } });
  await call('POST', `${pp}/acme-accounts/${accountId}/validate`, [409, 503], { token: owner });
  await call('POST', `${pp}/acme-accounts/${accountId}/rollover-key`, [409, 503], { token: owner });
  await call('GET', `${pp}/acme-accounts/no-such-account`, 404, { token: owner });

  const dns = await call('POST', `${pp}/dns-credentials`, 201, { token: owner, body: { name: 'Primary', provider: 'rfc2136', settings: { server: '127.0.0.1:1', key_name: 'certsteward', algorithm: 'hmac-sha256' }, secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=' } });
  const dnsId = dns.json?.dns_credential?.id;
  await call('POST', `${pp}/dns-credentials`, 400, { token: owner, body: { name: 'Other', provider: 'gandi-livedns' } });
  await call('GET', `${pp}/dns-credentials`, 200, { token: owner });
  await call('GET', `${pp}/dns-credentials/${dnsId}`, 200, { token: owner });
  await call('PATCH', `${pp}/dns-credentials/${dnsId}`, 200, { token: owner, body: { active: true } });
  await call('POST', `${pp}/dns-credentials/${dnsId}/test`, 409, { token: owner });

  const zone = await call('POST', `${pp}/zones`, 201, { token: owner, body: { domain: 'example.test', dns_credential_id: dnsId } });
  const zoneId = zone.json?.zone?.id;
  await call('POST', `${pp}/zones`, 422, { token: owner, body: { domain: 'other.test', dns_credential_id: 'no-such-credential' } });
  await call('GET', `${pp}/zones`, 200, { token: owner });
  await call('GET', `${pp}/zones/${zoneId}`, 200, { token: owner });
  await call('PATCH', `${pp}/zones/${zoneId}`, 200, { token: owner, body: { domain: 'example.test' } });
  await call('GET', `${pp}/zones/${zoneId}/rate-limits`, 200, { token: owner });
  await call('POST', `${pp}/dns-credentials/${dnsId}/test`, 200, { token: owner });
  await call('DELETE', `${pp}/dns-credentials/${dnsId}`, 409, { token: owner });

  const credential = await call('POST', `${pp}/credentials`, 201, { token: owner, body: { name: 'Deploy token', kind: 'token', secret: 'tk_secret' } });
  const credentialId = credential.json?.credential?.id;
  await call('POST', `${pp}/credentials`, 400, { token: owner, body: { name: 'x', kind: 'token', username: 5 } });
  await call('GET', `${pp}/credentials`, 200, { token: owner });
  await call('GET', `${pp}/credentials/${credentialId}`, 200, { token: owner });
  await call('PATCH', `${pp}/credentials/${credentialId}`, 200, { token: owner, body: { username: 'deployer' } });

  const channel = await call('POST', `${pp}/notification-channels`, 201, { token: owner, body: { name: 'Hook', kind: 'webhook', settings: { url: 'http://127.0.0.1:1/hook' }, secret: 'signing-key' } });
  const channelId = channel.json?.notification_channel?.id;
  await call('POST', `${pp}/notification-channels`, 400, { token: owner, body: { name: 'Pager', kind: 'pager' } });
  await call('POST', `${pp}/notification-channels`, 422, { token: owner, body: { name: 'Mail', kind: 'email', settings: { host: 'smtp.example.test' } } });
  await call('GET', `${pp}/notification-channels`, 200, { token: owner });
  await call('GET', `${pp}/notification-channels/${channelId}`, 200, { token: owner });
  await call('PATCH', `${pp}/notification-channels/${channelId}`, 200, { token: owner, body: { enabled: true } });
  await call('POST', `${pp}/notification-channels/${channelId}/test`, 200, { token: owner });
  await call('GET', `${pp}/notification-channels/${channelId}/deliveries`, 200, { token: owner });

  const rule = await call('POST', `${pp}/notification-rules`, 201, { token: owner, body: { name: 'Failures', events: ['job.failed', 'cert.renewal_failed'], channel_ids: [channelId] } });
  const ruleId = rule.json?.notification_rule?.id;
  await call('POST', `${pp}/notification-rules`, 400, { token: owner, body: { name: 'Bad', events: ['cert.exploded'] } });
  await call('POST', `${pp}/notification-rules`, 422, { token: owner, body: { name: 'Bad time', mode: 'digest', digest_time: '25:99' } });
  await call('POST', `${pp}/notification-rules`, 400, { token: owner, body: { name: 'Weekly', mode: 'weekly' } });
  await call('GET', `${pp}/notification-rules`, 200, { token: owner });
  await call('GET', `${pp}/notification-rules/${ruleId}`, 200, { token: owner });
  await call('PATCH', `${pp}/notification-rules/${ruleId}`, 200, { token: owner, body: { thresholds_days: [14, 7] } });

  const module = await call('POST', `${pp}/modules`, 201, { token: owner, body: { name: 'Deploy hook', module: 'webhook', targets: [{ name: 'edge', settings: { url: 'https://127.0.0.1:1/deploy' }, credential_id: credentialId }] } });
  const moduleId = module.json?.module?.id;
  await call('POST', `${pp}/modules`, 400, { token: owner, body: { name: 'Teleport', module: 'teleport' } });
  await call('POST', `${pp}/modules`, 422, { token: owner, body: { name: 'No URL', module: 'webhook', targets: [{ name: 'edge' }] } });
  await call('GET', `${pp}/modules`, 200, { token: owner });
  await call('GET', `${pp}/modules/${moduleId}`, 200, { token: owner });
  await call('PATCH', `${pp}/modules/${moduleId}`, 200, { token: owner, body: { auto_rollback_on_failure: true } });
  await call('POST', `${pp}/modules/${moduleId}/health`, 200, { token: owner });
  // The host key fetch: nothing listens on port 1 (503); a link-local address is refused by the
  // outbound policy (409); a bad port is a rule (422), a wrong type malformed (400).
  await call('POST', `${pp}/ssh-host-keys`, 503, { token: owner, body: { host: '127.0.0.1', port: 1 } });
  await call('POST', `${pp}/ssh-host-keys`, 409, { token: owner, body: { host: '169.254.169.254' } });
  await call('POST', `${pp}/ssh-host-keys`, 422, { token: owner, body: { host: '127.0.0.1', port: 70000 } });
  await call('POST', `${pp}/ssh-host-keys`, 400, { token: owner, body: { host: '127.0.0.1', port: '22' } });

  // Certificates, distributions, jobs, events.
  const cert = await call('POST', `${pp}/certificates`, 202, { token: owner, body: { common_name: 'www.example.test', sans: ['shop.example.test'], acme_account_id: accountId, key_type: 'ecdsa_p256' } });
  const certId = cert.json?.certificate?.id;
  const jobId = cert.json?.job?.id;
  await call('POST', `${pp}/certificates`, 400, { token: owner, body: { common_name: 'x.example.test', key_type: 'dsa_512' } });
  await call('POST', `${pp}/certificates`, 422, { token: owner, body: { common_name: 'www.example.test', renewal_threshold_days: 1000 } });
  const cc = `${pp}/certificates/${certId}`;
  await call('GET', `${pp}/certificates?sort=expires_at&order=asc&status=issuing,active`, 200, { token: owner });
  await call('GET', `${pp}/certificates?sort=colour`, 400, { token: owner });
  await call('GET', cc, 200, { token: owner });
  await call('GET', `${pp}/certificates/no-such-cert`, 404, { token: owner });
  await call('GET', `${pp}/summary`, 200, { token: owner });
  await call('GET', `${cc}/download`, 409, { token: owner });
  await call('GET', `${cc}/download?format=pkcs12`, 400, { token: owner });
  await call('POST', `${cc}/download`, 400, { token: owner, body: { format: 'zip', include_private_key: true } });
  await call('POST', `${cc}/renew`, 409, { token: owner });
  const dist = await call('POST', `${cc}/distributions`, 201, { token: operator, body: { module_config_id: moduleId } });
  const distId = dist.json?.distribution?.id;
  await call('POST', `${cc}/distributions`, 422, { token: owner, body: { module_config_id: 'no-such-module' } });
  await call('GET', `${cc}/distributions`, 200, { token: owner });
  await call('GET', `${pp}/distributions`, 200, { token: owner });
  await call('POST', `${cc}/distributions/${distId}/dry-run`, 409, { token: owner });
  await call('POST', `${cc}/distributions/${distId}/execute`, 409, { token: owner });
  await call('POST', `${cc}/distributions/${distId}/rollback`, 409, { token: owner });
  await call('PUT', `${pp}/members/${viewerId}`, 200, { token: owner, body: { role: 'viewer' } });
  await call('POST', `${cc}/distributions/${distId}/execute`, 403, { token: viewer });
  await call('DELETE', `${pp}/members/${viewerId}`, 204, { token: owner });
  await call('DELETE', `${cc}`, 409, { token: owner });
  await call('GET', `${pp}/jobs`, 200, { token: owner });
  await call('GET', `${pp}/jobs?status=sleeping`, 400, { token: owner });
  await call('GET', `${pp}/jobs/${jobId}`, 200, { token: owner });
  await call('GET', `${pp}/jobs/no-such-job`, 404, { token: owner });
  await call('GET', `${pp}/jobs/${jobId}/logs`, 200, { token: owner });
  const logs = await call('GET', `${pp}/jobs/${jobId}/logs?limit=2`, 200, { token: owner });
  await call('GET', `${pp}/jobs/${jobId}/logs?cursor=${logs.json?.next_cursor}`, 200, { token: owner });
  await call('GET', `${pp}/jobs/${jobId}/logs?limit=2&page=1`, 400, { token: owner });
  await call('GET', `${pp}/events`, 200, { token: owner });
  await call('GET', `${pp}/events?limit=5`, 200, { token: owner });
  await call('GET', `${pp}/events?cursor=nothex`, 400, { token: owner });
  await call('POST', `${pp}/jobs/${jobId}/cancel`, [200, 409], { token: owner });
  await call('POST', `${pp}/jobs/${jobId}/retry`, [200, 409], { token: owner });
  await call('POST', `${pp}/jobs/${jobId}/retry`, 403, { token: operator });

  // Audit log.
  const audit = await call('GET', '/api/v1/audit-logs?page_size=5', 200, { token: owner });
  await call('GET', '/api/v1/audit-logs?limit=3', 200, { token: owner });
  await call('GET', '/api/v1/audit-logs?action=project.create&limit=3', 200, { token: owner });
  await call('GET', '/api/v1/audit-logs?limit=3&page=2', 400, { token: owner });
  await call('GET', '/api/v1/audit-logs/head', 200, { token: owner });
  await call('GET', `/api/v1/audit-logs/${audit.json?.logs?.[0]?.id}`, 200, { token: owner });
  await call('GET', '/api/v1/audit-logs/no-such-entry', 404, { token: owner });
  await call('POST', '/api/v1/audit-logs/verify?expected_sequence=3', 400, { token: owner });
  await call('POST', '/api/v1/audit-logs/verify?limit=0', 422, { token: owner });
  await call('POST', '/api/v1/audit-logs/verify', 200, { token: owner });
  await call('POST', '/api/v1/audit-logs/verify', 429, { token: owner });

  // Licence, CA providers, settings.
  await call('GET', '/api/v1/license/status', 200, { token: owner });
  await call('POST', '/api/v1/license/activate', [409, 422], { token: owner, body: { license_key: 'not-a-licence' } });
  await call('POST', '/api/v1/license/activate', 400, { token: owner, body: {} });
  await call('GET', '/api/v1/ca-providers', 200, { token: viewer });
  const catalog = await call('GET', '/api/v1/catalog', 200, { token: viewer });
  const kinds = (catalog.json?.event_kinds ?? []).map((k) => k.name);
  const documented = doc.components.schemas.EventKind.enum;
  if (kinds.length !== documented.length || documented.some((k) => !kinds.includes(k))) {
    failures.push(`GET /api/v1/catalog: event kinds ${kinds.join(',')} are not the documented ${documented.join(',')}`);
  }
  await call('GET', '/api/v1/catalog', 401);
  await call('GET', '/api/v1/settings/ldap', 200, { token: owner });
  await call('POST', '/api/v1/settings/ldap/test', 409, { token: owner });
  await call('PUT', '/api/v1/settings/ldap', 200, { token: owner, body: { host: '127.0.0.1', port: 1, security: 'none', base_dn: 'dc=example,dc=test', group_base_dn: 'ou=groups,dc=example,dc=test', group_mappings: [{ group_dn: 'cn=ops,dc=example,dc=test', org_role: 'operator' }], connect_timeout_seconds: 2 } });
  await call('PUT', '/api/v1/settings/ldap', 400, { token: owner, body: { host: '127.0.0.1', base_dn: 'dc=example,dc=test', colour: 'blue' } });
  await call('PUT', '/api/v1/settings/ldap', 422, { token: owner, body: { host: 'ldap.example.test', security: 'none', base_dn: 'dc=example,dc=test' } });
  await call('GET', '/api/v1/settings/ldap', 200, { token: owner });
  await call('POST', '/api/v1/settings/ldap/test', 200, { token: owner });
  await call('GET', '/api/v1/settings/oidc', 200, { token: owner });
  await call('PUT', '/api/v1/settings/oidc', 200, { token: owner, body: { issuer: 'https://idp.example.test', client_id: 'certsteward', redirect_uri: 'https://certs.example.test/api/v1/auth/oidc/callback', group_mappings: [{ group: 'pki', org_role: 'admin' }] } });
  await call('PUT', '/api/v1/settings/oidc', 400, { token: owner, body: { client_id: 'certsteward' } });
  await call('PUT', '/api/v1/settings/oidc', 422, { token: owner, body: { issuer: 'ftp://idp.example.test', client_id: 'certsteward', redirect_uri: 'https://certs.example.test/api/v1/auth/oidc/callback' } });
  await call('GET', '/api/v1/settings/oidc', 200, { token: owner });

  // Deleting: blocked while things refer to it, then in order.
  await call('DELETE', pp, 409, { token: owner });
  await call('DELETE', `${cc}/distributions/${distId}`, 204, { token: owner });
  await call('DELETE', cc, 204, { token: owner });
  await call('DELETE', `${pp}/notification-rules/${ruleId}`, 204, { token: owner });
  await call('DELETE', `${pp}/notification-channels/${channelId}`, 204, { token: owner });
  await call('DELETE', `${pp}/modules/${moduleId}`, 204, { token: owner });
  await call('DELETE', `${pp}/credentials/${credentialId}`, 204, { token: owner });
  await call('DELETE', `${pp}/zones/${zoneId}`, 204, { token: owner });
  await call('DELETE', `${pp}/dns-credentials/${dnsId}`, 204, { token: owner });
  await call('DELETE', `${pp}/acme-accounts/${accountId}`, 204, { token: owner });
  await call('DELETE', `${pp}/members/${operatorId}`, 204, { token: owner });
  await call('DELETE', pp, 204, { token: owner });
  await call('GET', pp, 404, { token: owner });
  await call('DELETE', `/api/v1/users/${viewerId}`, 204, { token: owner });
  await call('DELETE', `/api/v1/users/${ownerId}`, 409, { token: owner });
  await call('DELETE', '/api/v1/users/no-such-user', 404, { token: owner });

  // One's own sessions and password (the operator's account, at the end: its tokens end with it).
  const operatorLate = (await login('otto.operator', operatorPassword)).json?.access_token;
  const sessions = await call('GET', '/api/v1/auth/sessions', 200, { token: operatorLate });
  await call('DELETE', '/api/v1/auth/sessions/no-such-session', 404, { token: operatorLate });
  await call('POST', '/api/v1/auth/password', 422, { token: operatorLate, body: { current_password: 'not it', new_password: 'a new long password' } });
  await call('POST', '/api/v1/auth/password', 400, { token: operatorLate, body: { current_password: operatorPassword } });
  const changed = await call('POST', '/api/v1/auth/password', 200, { token: operatorLate, body: { current_password: operatorPassword, new_password: 'a new long password' } });
  await call('GET', '/api/v1/auth/me', 401, { token: operatorLate });
  const operatorAgain = changed.json?.access_token;
  const again = await call('GET', '/api/v1/auth/sessions', 200, { token: operatorAgain });
  if (again.json?.sessions?.length !== 1 || !again.json.sessions[0].current) failures.push(`after a password change one current session, not ${JSON.stringify(again.json)}`);
  if (!(sessions.json?.sessions?.length >= 1)) failures.push('no session listed before the change');
  await call('DELETE', `/api/v1/auth/sessions/${again.json?.sessions?.[0]?.id}`, 204, { token: operatorAgain });

  // Logging out ends the session.
  await call('POST', '/api/v1/auth/logout', 204, { token: owner });
  await call('GET', '/api/v1/auth/me', 401, { token: owner });
} catch (e) {
  failures.push(`the run stopped: ${e.stack ?? e}`);
}

const operationsTotal = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0);
for (const f of failures) console.error(`FAIL: ${f}`);
console.log(`${requests} requests, ${checked} responses checked against docs/openapi.yaml, ${covered.size} of ${operationsTotal} operations exercised`);
if (process.env.CERTSTEWARD_OPENAPI_UNCOVERED) {
  const all = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
  console.log(`not exercised: ${all.filter((k) => !covered.has(k)).join('\n  ')}`);
}
console.log(failures.length === 0 ? '1 passed, 0 failed' : `0 passed, 1 failed: ${failures.length} problems`);
process.exit(failures.length === 0 ? 0 : 1);

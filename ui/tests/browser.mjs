// The web UI in headless Chromium, driven by Playwright, against a running server wired to
// Pebble and bind9 (started by tests/e2e/ui_browser_test.cpp, which passes their addresses in
// the environment). Every step asserts; the first failure ends the run with exit status 1.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { connect as tlsConnect } from "node:tls";
import { scorePages, signedInSession } from "./lighthouse.mjs";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const base = env("CERTSTEWARD_URL");
const admin = { username: env("CERTSTEWARD_ADMIN"), password: env("CERTSTEWARD_ADMIN_PASSWORD") };
const zone = env("DNS_ZONE");
const shots = process.env.UI_SCREENSHOTS;
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// --- the API directly (set-up a person would do elsewhere) ---------------------------------
async function apiCall(method, path, { token, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  const r = await fetch(base + "/api/v1" + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, json, headers: r.headers };
}
async function tokenFor(username, password) {
  const r = await apiCall("POST", "/auth/login", { body: { username, password } });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  lastRefreshToken = r.json.refresh_token;
  return r.json.access_token;
}
let lastRefreshToken = "";

// RFC 6238 with the server's parameters (SHA-1, 6 digits, 30 s).
function base32(s) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of s.replace(/=+$/, "").toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}
function totp(secret, step = Math.floor(Date.now() / 30000)) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32(secret)).update(counter).digest();
  const o = mac[mac.length - 1] & 0xf;
  const n = ((mac.readUInt32BE(o) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
  return n;
}

// --- the browser ------------------------------------------------------------------------------
const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

const consoleErrors = [];
const expectedNetworkErrors = [];
const provokedRuleErrors = [];
const provoked422 = 4; // the webhook channel's URL, the webhook module target's URL, a wrong current password, a certificate outside the policy
const provokedNotFound = []; // the bulk delete of a certificate deleted meanwhile (one expected)
async function newPage(label, options = {}) {
  const context = await browser.newContext({ baseURL: base, acceptDownloads: true, viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // Chromium reports every 4xx answer to fetch on the console. The 401s of an expired token
    // and the 403s this test provokes on purpose are expected; anything else fails.
    if (/Failed to load resource: the server responded with a status of 40[13]/.test(m.text())) expectedNetworkErrors.push(`${label}: ${m.text()}`);
    // The 422s the form steps provoke to see a field error (counted at the end).
    else if (/Failed to load resource: the server responded with a status of 422/.test(m.text())) provokedRuleErrors.push(`${label}: ${m.text()}`);
    else if (/Failed to load resource: the server responded with a status of 404/.test(m.text())) provokedNotFound.push(`${label}: ${m.text()}`);
    else consoleErrors.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`${label}: page error: ${e.message}`));
  page.setDefaultTimeout(15000);
  return { context, page };
}

// A link of the main navigation.
const nav = (page, name) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
// A tab of the configuration page.
const tab = (page, name) => page.getByRole("navigation", { name: "Configuration" }).getByRole("link", { name, exact: true });

async function signIn(page, who) {
  await page.goto("/");
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

// A picture of the page's view, or of one element (a locator) whole.
async function screenshot(page, name) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}.png`, ...("goto" in page ? { fullPage: false } : {}) });
}

const waitFor = async (what, check, ms = 60000, every = 500) => {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
};

const failures = [];
async function step(name, body) {
  log("step:", name);
  try {
    await body();
  } catch (e) {
    failures.push(`${name}: ${e.stack ?? e}`);
    throw e;
  }
}

let exitCode = 0;
try {
  // The refresh and OTP checks wait on clocks (a 30 s token, a 30 s TOTP window): they run
  // beside the main flow.
  const adminToken = await tokenFor(admin.username, admin.password);
  // The admin's API token for a later step: the access token lives 30 s (jwt.access_token_ttl)
  // and a busy machine reaches later steps after that, so it is refreshed (not logged in again:
  // the steps' sign-ins already come close to the 10 logins a minute of one address).
  let adminTokens = { access: adminToken, refresh: lastRefreshToken, at: Date.now() };
  const freshAdminToken = async () => {
    if (Date.now() - adminTokens.at < 15000) return adminTokens.access;
    const r = await apiCall("POST", "/auth/refresh", { body: { refresh_token: adminTokens.refresh } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    adminTokens = { access: r.json.access_token, refresh: r.json.refresh_token, at: Date.now() };
    return adminTokens.access;
  };

  // Started now, awaited later: a failure is kept with its step's name until then.
  const parallel = (name, body) => body().then(
    () => null,
    (e) => `${name}: ${e.stack ?? e}`,
  );
  const refreshCheck = parallel("refresh", async () => {
    const { page } = await newPage("refresh");
    await signIn(page, admin);
    await nav(page, "Projects").waitFor();
    const signedInAt = Date.now();
    const seen = [];
    page.on("response", (r) => {
      if (r.url().includes("/api/v1/")) seen.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
    });
    await nav(page, "Projects").click();
    await page.getByRole("table").waitFor();
    await page.getByLabel("Name").fill("after-refresh");
    await sleep(Math.max(0, 32000 - (Date.now() - signedInAt)));  // the access token (30 s) has expired
    seen.length = 0;
    // A mutation meets the expired token: refreshed once, then sent again.
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    const posts = seen.filter((s) => s.startsWith("POST /api/v1/projects"));
    assert.deepEqual(posts, ["POST /api/v1/projects 401", "POST /api/v1/projects 201"], seen.join(", "));
    assert.equal(seen.filter((s) => s.startsWith("POST /api/v1/auth/refresh")).length, 1, `not one refresh: ${seen.join(", ")}`);
    assert.ok(seen.includes("POST /api/v1/auth/refresh 200"), `no refresh: ${seen.join(", ")}`);
    assert.ok(!page.url().includes("/login"), "sent to the login page instead of refreshing");
    log("refresh: an expired access token was refreshed once and the mutation retried:", seen.join(", "));
  });

  const otpCheck = parallel("otp", async () => {
    const otpUser = { username: "otp.user", password: "otp user password 1" };
    assert.equal((await apiCall("POST", "/users", { token: adminToken, body: { ...otpUser, org_role: "operator" } })).status, 201);
    const token = await tokenFor(otpUser.username, otpUser.password);
    const setup = await apiCall("POST", "/auth/totp/setup", { token });
    assert.equal(setup.status, 200);
    const enabledStep = Math.floor(Date.now() / 30000);
    assert.equal((await apiCall("POST", "/auth/totp/enable", { token, body: { code: totp(setup.json.secret, enabledStep) } })).status, 200);
    const { page } = await newPage("otp");
    await signIn(page, otpUser);
    await page.getByLabel("One-time code").waitFor();
    // A code is good once: wait for the next window.
    while (Math.floor(Date.now() / 30000) === enabledStep) await sleep(500);
    await page.getByLabel("One-time code").fill(totp(setup.json.secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    log("otp: signed in with password and one-time code");
  });

  const { page } = await newPage("admin");
  let projectPath = "";
  let certPath = "";

  await step("the app is served on / with its security headers; unknown API paths stay JSON", async () => {
    const response = await page.goto("/");
    const h = response.headers();
    assert.match(h["content-type"], /text\/html/);
    assert.match(h["content-security-policy"], /default-src 'self'/);
    assert.doesNotMatch(h["content-security-policy"], /unsafe-inline/);
    assert.match(h["content-security-policy"], /frame-ancestors 'none'/);
    assert.equal(h["x-content-type-options"], "nosniff");
    assert.ok(h["referrer-policy"]);
    assert.equal(h["cache-control"], "no-cache");
    const deep = await page.request.get("/p/0000/certificates");
    assert.equal(deep.status(), 200);
    assert.match(deep.headers()["content-type"], /text\/html/);
    const api404 = await page.request.get("/api/v1/no-such-thing");
    assert.equal(api404.status(), 404);
    assert.match(api404.headers()["content-type"], /application\/json/);
    await page.getByRole("heading", { name: "Sign in to CertSteward" }).waitFor();
    await screenshot(page, "login");
  });

  await step("sign in; no token reaches web storage", async () => {
    await signIn(page, admin);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    const tokens = (await page.context().cookies()).filter((c) => c.name.endsWith("_token")).map((c) => c.value);
    assert.ok(tokens.length === 3, "the three session cookies are not set");
    for (const t of tokens) assert.ok(!stored.includes(t), "a session token was put in web storage");
    assert.doesNotMatch(stored, /eyJ/, "a JWT was put in web storage");
    const cookies = await page.context().cookies();
    assert.ok(cookies.find((c) => c.name === "access_token")?.httpOnly);
    assert.equal(cookies.find((c) => c.name === "csrf_token")?.httpOnly, false);
  });

  await step("create a project", async () => {
    await nav(page, "Projects").click();
    await page.getByLabel("Name").fill("web");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    projectPath = new URL(page.url()).pathname;
    assert.match(projectPath, /^\/p\/[0-9a-f]+$/);
    // An empty project starts with the steps to a first certificate, none done yet.
    const firstRun = page.getByRole("navigation", { name: "Getting started" });
    await firstRun.waitFor();
    assert.equal(await firstRun.getByRole("link").count(), 6);
    assert.equal(await firstRun.getByRole("link").first().getAttribute("href"), `${projectPath}/config/acme-accounts`);
  });

  await step("a cookie mutation without X-CSRF-Token is refused", async () => {
    const status = await page.evaluate(async () => {
      const r = await fetch("/api/v1/projects", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "csrf-probe" }) });
      return r.status;
    });
    assert.equal(status, 403);
  });

  await step("add a CA provider; its directory is read", async () => {
    await nav(page, "CA providers").click();
    await page.getByRole("heading", { name: "CA providers" }).waitFor();
    await page.getByRole("button", { name: "New CA provider" }).click();
    // A preset fills in the CA's directory; custom takes any.
    await page.getByLabel("Preset").selectOption("letsencrypt-staging");
    assert.match(await page.getByLabel("Directory URL").inputValue(), /^https:\/\/acme-staging-v02\.api\.letsencrypt\.org\/directory$/);
    await page.getByLabel("Preset").selectOption("custom");
    await page.getByLabel("Name *").fill("Pebble");
    await page.getByLabel("Directory URL *").fill(env("PEBBLE_DIRECTORY"));
    await page.getByLabel("CAA identities").fill("pebble.example");
    await page.getByRole("button", { name: "Add provider" }).click();
    const card = page.getByRole("article", { name: "Pebble" });
    await card.waitFor();
    // Read from Pebble's directory: no error, and Pebble 2.4 lists no profiles.
    assert.equal(await card.getByRole("alert").count(), 0, "the directory could not be read");
    await card.locator("dt", { hasText: "Profiles" }).locator("xpath=following-sibling::dd", { hasText: "none offered" }).waitFor();
    await card.locator("dd", { hasText: "pebble.example" }).waitFor();
    await screenshot(page, "ca-providers");
  });

  await step("create an ACME account of that provider", async () => {
    await nav(page, "Configuration").click();
    await page.getByRole("button", { name: "New ACME account" }).click();
    await page.getByLabel("Name *").fill("pebble");
    await page.getByLabel("CA provider").selectOption({ label: "Pebble" });
    await page.getByLabel("Contact email").fill("ops@example.test");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    const account = page.getByRole("article", { name: "pebble" });
    await account.waitFor();
    await account.locator("dd", { hasText: env("PEBBLE_DIRECTORY") }).waitFor();
    await account.locator("dt", { hasText: "CA provider" }).locator("xpath=following-sibling::dd", { hasText: "Pebble" }).waitFor();
    await screenshot(page, "configuration");
  });

  await step("create a DNS credential", async () => {
    await tab(page, "DNS credentials").click();
    await page.getByRole("button", { name: "New DNS credential" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("bind9");
    // The provider's fields come from the server's catalog: a select for the algorithm, the
    // secret write-only.
    await page.getByLabel("Provider *").selectOption("rfc2136");
    await page.getByLabel("Primary server *").fill(env("DNS_SERVER"));
    await page.getByLabel("TSIG key name *").fill(env("TSIG_KEY_NAME"));
    await page.getByLabel("TSIG algorithm").selectOption("hmac-sha256");
    assert.equal(await page.getByLabel("TSIG secret *").getAttribute("type"), "password");
    await page.getByLabel("TSIG secret *").fill(env("TSIG_SECRET"));
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: "bind9" }).waitFor();
  });

  await step("create the zone", async () => {
    await tab(page, "Zones").click();
    await page.getByRole("button", { name: "New zone" }).click();
    await page.getByLabel("Domain *").fill(zone);
    await page.getByLabel("DNS credential *").selectOption({ label: "bind9" });
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: zone }).waitFor();
  });

  await step("the DNS credential's test adds, sees and removes a record", async () => {
    await tab(page, "DNS credentials").click();
    await page.getByRole("button", { name: "Test" }).click();
    await page.getByText("Test passed").waitFor({ timeout: 30000 });
    const steps = await page.locator(".result li").allTextContents();
    for (const name of ["add", "visible", "remove"]) {
      assert.ok(steps.some((t) => t.startsWith(`✓ ${name}:`)), `no passed "${name}" step in ${JSON.stringify(steps)}`);
    }
  });

  await step("edit the DNS credential: the secret is kept when left empty", async () => {
    await page.getByRole("button", { name: "Edit" }).click();
    assert.equal(await page.getByLabel("Primary server *").inputValue(), env("DNS_SERVER"));
    await page.getByLabel("Name *", { exact: true }).fill("bind9 primary");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { name: "bind9 primary" }).waitFor();
    const row = page.getByRole("article", { name: "bind9 primary" });
    assert.equal((await row.locator("dt", { hasText: "Secret" }).locator("xpath=following-sibling::dd").textContent()).trim(), "set");
    await page.getByRole("button", { name: "Test" }).click();
    await page.getByText("Test passed").waitFor({ timeout: 30000 });
  });

  await step("a webhook channel: the server's error shows beside the URL; fixed, it saves", async () => {
    await tab(page, "Notification channels").click();
    await page.getByRole("button", { name: "New notification channel" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("ops hook");
    await page.getByLabel("Kind *", { exact: true }).selectOption("webhook");
    await page.getByLabel("URL *").fill("http://hooks.example.com/certsteward");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    const error = page.locator(".field.invalid").getByRole("alert");
    await error.waitFor();
    assert.match(await error.textContent(), /settings\.url .*https:\/\//);
    await page.getByLabel("URL *").fill("https://hooks.example.com/certsteward");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: "ops hook" }).waitFor();
  });

  await step("a rule picks its events and channels by name", async () => {
    await tab(page, "Notification rules").click();
    await page.getByRole("button", { name: "New notification rule" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("expiry to ops");
    await page.getByRole("checkbox", { name: "cert.expiring_soon" }).check();
    // The CA and policy events are the catalog's like the others.
    await page.getByRole("checkbox", { name: "ca.failover" }).check();
    await page.getByRole("checkbox", { name: "policy.violation" }).waitFor();
    await page.getByRole("checkbox", { name: "ops hook (webhook)" }).check();
    await page.getByRole("button", { name: "Create", exact: true }).click();
    const row = page.getByRole("article", { name: "expiry to ops" });
    await row.waitFor();
    assert.equal((await row.locator("dt", { hasText: "Events" }).locator("xpath=following-sibling::dd").textContent()).trim(), "cert.expiring_soon, ca.failover");
  });

  await step("a webhook module with a table of targets and a credential picked by name", async () => {
    await tab(page, "Credentials").click();
    await page.getByRole("button", { name: "New credential" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("deploy token");
    await page.getByLabel("Kind *", { exact: true }).selectOption("token");
    await page.getByLabel("Token *").fill("a signing secret");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: "deploy token" }).waitFor();

    await tab(page, "Distribution modules").click();
    await page.getByRole("button", { name: "New module" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("deploy hooks");
    await page.getByLabel("Module *").selectOption("webhook");
    await page.getByLabel("Send the private key").selectOption("false");
    await page.getByRole("button", { name: "Add target" }).click();
    await page.getByLabel("Name, target 1").fill("web1");
    await page.getByLabel("URL, target 1").fill("http://deploy.example.com/hook");
    await page.getByLabel("Credential, target 1").selectOption({ label: "deploy token (token)" });
    await page.getByRole("button", { name: "Create", exact: true }).click();
    // A plain-http URL: the server names the target's field, and the form shows it in its row.
    const error = page.locator("tr.invalid").getByRole("alert");
    await error.waitFor();
    assert.match(await error.textContent(), /target web1: setting url .*https:\/\//);
    await page.getByLabel("URL, target 1").fill("https://deploy.example.com/hook");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    const row = page.getByRole("article", { name: "deploy hooks" });
    await row.waitFor();
    assert.equal((await row.locator("dt", { hasText: "Targets" }).locator("xpath=following-sibling::dd").textContent()).trim(), "1");

    // A target's own value of a shared setting, set through the API: the form says so, and
    // saving the form keeps it.
    const projectId = projectPath.split("/")[2];
    const token = await freshAdminToken();
    const listed = await apiCall("GET", `/projects/${projectId}/modules`, { token });
    const hooks = listed.json.modules.find((m) => m.name === "deploy hooks");
    const targets = hooks.targets.map((t) => ({ name: t.name, credential_id: t.credential_id, settings: { ...t.settings, include_private_key: "true" } }));
    const patched = await apiCall("PATCH", `/projects/${projectId}/modules/${hooks.id}`, { token, body: { targets } });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    await page.reload();
    await page.getByRole("article", { name: "deploy hooks" }).getByRole("button", { name: "Edit" }).click();
    const note = page.getByText(/Target 1 sets its own/);
    await note.waitFor();
    assert.match(await note.textContent(), /Send the private key = true/);
    await page.getByLabel("Name *", { exact: true }).fill("deploy hooks");
    await page.getByLabel("URL, target 1").fill("https://deploy.example.com/hook2");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("article", { name: "deploy hooks" }).getByRole("button", { name: "Edit" }).waitFor();
    const after = (await apiCall("GET", `/projects/${projectId}/modules/${hooks.id}`, { token: await freshAdminToken() })).json.module;
    assert.deepEqual(after.targets[0].settings, { url: "https://deploy.example.com/hook2", include_private_key: "true" }, JSON.stringify(after));
  });

  const commonName = `ui.${zone}`;
  let firstSerial = "";
  await step("issue a certificate and watch it become active", async () => {
    await nav(page, "Certificates").click();
    await page.getByRole("button", { name: "New certificate" }).click();
    await page.getByLabel("Common name").fill(commonName);
    await page.getByLabel("Other names (SANs)").fill(`alt-ui.${zone}`);
    await page.getByRole("button", { name: "Request certificate" }).click();
    await page.getByRole("heading", { name: commonName }).waitFor();
    certPath = new URL(page.url()).pathname;
    await page.locator(".heading .badge", { hasText: "active" }).waitFor({ timeout: 90000 });
    firstSerial = (await page.locator("dt", { hasText: "Serial number" }).locator("xpath=following-sibling::dd").textContent()).trim();
    assert.match(firstSerial, /^[0-9a-fA-F:]+$/);
    // Who issued it: the project's only account, and its provider; renewal at a third left.
    const row = (name) => page.locator("dt", { hasText: new RegExp(`^${name}$`) }).locator("xpath=following-sibling::dd");
    await row("Issued through").filter({ hasText: "pebble (Pebble)" }).waitFor();
    await row("CA provider").filter({ hasText: "Pebble" }).waitFor();
    assert.equal((await row("Renew").textContent()).trim(), "with 33% of its lifetime left");
    await screenshot(page, "certificate");
  });

  await step("download the certificate, and with its key as PKCS#12", async () => {
    const [pem] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Certificate and chain (PEM)" }).click()]);
    const text = readFileSync(await pem.path(), "utf8");
    assert.match(text, /-----BEGIN CERTIFICATE-----/);
    assert.doesNotMatch(text, /PRIVATE KEY/);
    await page.getByLabel("Password for the key").fill("a strong export password");
    const [p12] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download with key" }).click()]);
    assert.match(p12.suggestedFilename(), /\.p12$/);
    const bytes = readFileSync(await p12.path());
    assert.ok(bytes.length > 500 && bytes[0] === 0x30, "not a DER PKCS#12 file");
  });

  await step("renew it and follow the job log", async () => {
    await page.getByRole("button", { name: "Renew now" }).click();
    const renewLink = page.getByRole("link", { name: "renew certificate" }).first();
    await renewLink.waitFor();
    await renewLink.click();
    await page.getByRole("heading", { name: "renew certificate" }).waitFor();
    const counts = new Set();
    let seenRunning = false; // whether the page was open while the job still ran
    await waitFor("the renewal to complete", async () => {
      counts.add(await page.locator("ol.log li:not(.muted)").count());
      const status = await page.locator(".heading .badge").textContent();
      if (status !== "completed") seenRunning = true;
      return status === "completed";
    }, 90000, 250);
    const jobApi = "/api/v1" + new URL(page.url()).pathname.replace(/^\/p\//, "/projects/") + "/logs?limit=500";
    const written = (await (await page.request.get(jobApi)).json()).logs.length;
    // The page reads the rest of the log once it sees the job end: on a busy machine that read
    // can take a moment.
    let lines = 0;
    await waitFor("the open page to show the whole log", async () => {
      lines = await page.locator("ol.log li:not(.muted)").count();
      return lines >= written;
    }, 10000, 200);
    assert.ok(lines >= 2, `only ${lines} log lines`);
    // Without a reload the open page shows every line the job wrote, also those written after it
    // opened. (Whether any were depends on timing: a renewal through Pebble can finish, or write
    // its last line, before a busy machine has loaded the page, so growth is reported, not
    // required.)
    assert.equal(lines, written, `the open page shows ${lines} of the job's ${written} log lines`);
    const grew = Math.min(...counts) < lines;
    log(`job log: line counts seen while it ran: ${[...counts].join(", ")}; ${lines} at the end` +
        `${seenRunning ? (grew ? " (followed while running)" : " (all written before the page opened)") : " (finished before the page opened)"}`);
    await screenshot(page, "job");
    await page.goto(certPath);
    await page.locator(".heading .badge", { hasText: "active" }).waitFor();
    const serial = (await page.locator("dt", { hasText: "Serial number" }).locator("xpath=following-sibling::dd").textContent()).trim();
    assert.notEqual(serial, firstSerial, "the renewal did not change the serial");
  });

  await step("an SSH target built in the form, with its fetched host key, deploys to nginx", async () => {
    await nav(page, "Configuration").click();
    await tab(page, "Credentials").click();
    await page.getByRole("button", { name: "New credential" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("sshd key");
    await page.getByLabel("Kind *", { exact: true }).selectOption("ssh_key");
    await page.getByLabel("User name").fill(env("SSH_USER"));
    await page.getByLabel("Private key *").fill(env("SSH_CLIENT_KEY"));
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: "sshd key" }).waitFor();

    await tab(page, "Distribution modules").click();
    await page.getByRole("button", { name: "New module" }).click();
    await page.getByLabel("Name *", { exact: true }).fill("nginx over ssh");
    await page.getByLabel("Module *").selectOption("ssh");
    const site = env("NGINX_SITE");
    await page.getByLabel("Certificate file", { exact: true }).fill(`${site}/cert.pem`);
    await page.getByLabel("Private key file *").fill(`${site}/key.pem`);
    await page.getByLabel("Full chain file", { exact: true }).fill(`${site}/fullchain.pem`);
    await page.getByLabel("Reload command").fill(env("NGINX_RELOAD"));
    await page.getByRole("button", { name: "Add target" }).click();
    await page.getByLabel("Name, target 1").fill("web-1");
    await page.getByLabel("Host, target 1").fill("127.0.0.1");
    await page.getByLabel("Port, target 1").fill(env("SSH_PORT"));
    // The server reads the key the host offers; nothing fills the field until it is trusted.
    await page.getByRole("button", { name: "Fetch host key" }).click();
    const offered = page.locator(".host-key").getByRole("status");
    await offered.waitFor({ timeout: 20000 });
    assert.ok((await offered.textContent()).includes(env("SSH_HOST_KEY")), await offered.textContent());
    assert.equal(await page.getByLabel("Host key fingerprint, target 1").inputValue(), "");
    await page.getByRole("button", { name: "Trust this key" }).click();
    assert.equal(await page.getByLabel("Host key fingerprint, target 1").inputValue(), env("SSH_HOST_KEY"));
    await page.getByLabel("Credential, target 1").selectOption({ label: "sshd key (ssh_key)" });
    await screenshot(page.getByRole("form", { name: "New module" }), "module-form");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("article", { name: "nginx over ssh" }).waitFor();

    await page.goto(certPath);
    await page.getByLabel("Distribute with module").selectOption({ label: "nginx over ssh (ssh)" });
    await page.getByRole("button", { name: "Add distribution" }).click();
    const card = page.locator("article", { hasText: "Deployed serial" });
    // The dry run shows its plan: each file nginx has now is replaced, and the reload is run.
    await card.getByRole("button", { name: "Dry run" }).click();
    const plan = card.getByRole("region", { name: "Plan for web-1" });
    await plan.waitFor({ timeout: 20000 });
    const planned = (await plan.locator("li").allTextContents()).map((s) => s.replace(/\s+/g, " ").trim());
    for (const file of ["cert.pem", "fullchain.pem", "key.pem"]) {
      assert.ok(planned.includes(`replace ${site}/${file}`), `${file} not planned as replaced: ${JSON.stringify(planned)}`);
    }
    assert.ok(planned.some((l) => l.startsWith("run ") && l.includes(env("NGINX_RELOAD"))), `no reload planned: ${JSON.stringify(planned)}`);
    await screenshot(page, "dry-run");
    // Executed, the card follows its job and the distribution until they settle, with no reload.
    await card.getByRole("button", { name: "Execute" }).click();
    await card.getByRole("status").filter({ hasText: "Done" }).waitFor({ timeout: 60000 });
    assert.match((await card.getByRole("status").filter({ hasText: "Done" }).textContent()).replace(/\s+/g, " "), /distribution execute completed/i);
    await card.getByText("last execute: Succeeded").waitFor({ timeout: 15000 });
    // nginx now serves the issued certificate, put there over SSH by the module the form made.
    const served = await new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: "127.0.0.1", port: Number(env("NGINX_PORT")), servername: "site.example.test", rejectUnauthorized: false }, () => {
        const cert = socket.getPeerCertificate();
        socket.end();
        resolve(cert);
      });
      socket.setTimeout(5000, () => reject(new Error("nginx did not answer")));
      socket.on("error", reject);
    });
    assert.match(served.subjectaltname ?? "", new RegExp(`DNS:${commonName.replace(/\./g, "\\.")}`));
  });

  await step("a zone's CA rate limits are a table, counting the orders made", async () => {
    await nav(page, "Configuration").click();
    await tab(page, "Zones").click();
    await page.getByRole("button", { name: "CA rate limits" }).click();
    const table = page.getByRole("table", { name: /CA rate limits for/ });
    await table.waitFor();
    const row = table.locator("tbody tr").filter({ hasText: env("PEBBLE_DIRECTORY") });
    await row.waitFor();
    // An issuance and a renewal: two certificates counted against the directory.
    assert.match(await row.locator("td").nth(1).textContent(), /^2 /);
  });

  await step("the certificates page filters, searches and pages on the server", async () => {
    const seen = [];
    const listener = (r) => {
      if (r.url().includes("/certificates?")) seen.push(new URL(r.url()).search);
    };
    page.on("response", listener);
    await nav(page, "Certificates").click();
    const searched = (text) => page.waitForResponse((r) => r.url().includes(`search=${encodeURIComponent(text)}`));
    await Promise.all([searched("no-such-name"), page.getByLabel("Search by any name").fill("no-such-name")]);
    await page.getByText("No certificate matches.").waitFor();
    await Promise.all([searched("alt-ui"), page.getByLabel("Search by any name").fill("alt-ui")]);  // a SAN
    await page.getByRole("link", { name: commonName }).waitFor();
    await Promise.all([searched("ui."), page.getByLabel("Search by any name").fill("ui.")]);
    await page.getByRole("link", { name: commonName }).waitFor();
    await page.getByLabel("Sort by").selectOption("expires_at");  // days left: fewest first
    await page.waitForURL(/sort=expires_at/);
    assert.match(page.url(), /order=asc/);
    await page.getByRole("link", { name: commonName }).waitFor();
    await page.getByLabel("Status").selectOption("renewal_failed");
    await page.getByText("No certificate matches.").waitFor();
    await page.getByLabel("Status").selectOption("");
    await page.getByRole("link", { name: commonName }).waitFor();
    page.off("response", listener);
    assert.ok(seen.some((s) => s.includes("search=ui.")), seen.join(" "));
    assert.ok(seen.some((s) => s.includes("sort=expires_at") && s.includes("order=asc")), seen.join(" "));
    assert.ok(seen.some((s) => s.includes("status=renewal_failed")), seen.join(" "));
    assert.ok(seen.every((s) => s.includes("page_size=25")), seen.join(" "));
    await screenshot(page, "certificates");
  });

  await step("the dashboard shows the counts", async () => {
    await nav(page, "Dashboard").click();
    await page.getByRole("img", { name: /Certificates expiring in each of the next 13 weeks/ }).waitFor();
    const totalTile = page.locator(".tile").first();
    assert.equal(await totalTile.locator(".tile-n").textContent(), "1");
    assert.equal((await totalTile.textContent()).trim(), "1 certificate");  // not "1 certificates"
    // Every first-run step is done: the checklist is gone.
    assert.equal(await page.getByRole("navigation", { name: "Getting started" }).count(), 0);
    // The one certificate is in service; the chart's axis shows dates.
    assert.equal(await page.locator(".tile", { hasText: "active" }).first().locator(".tile-n").textContent(), "1");
    assert.match(await page.locator("svg .axis").first().textContent(), /\d/);
    await screenshot(page, "dashboard");
  });

  await step("the licence page says the plan, the cap and what is used, in words", async () => {
    await nav(page, "Licence").click();
    const plan = page.getByRole("status").filter({ hasText: "Free plan" });
    await plan.waitFor();
    assert.match((await plan.textContent()).replace(/\s+/g, " "), /Free plan: 1 of 1 certificate in use\..*one certificate across all projects/);
  });

  await step("a licence lifts the cap; bulk actions report each certificate; the CSV holds the filtered list", async () => {
    await page.getByLabel("Licence key").fill(env("LICENSE_KEY"));
    await page.getByRole("button", { name: "Activate" }).click();
    await page.getByText("The licence is active.").waitFor();
    await page.getByRole("status").filter({ hasText: "Enterprise plan (UI test team): 1 of 5 certificates in use." }).waitFor();
    const token = await freshAdminToken();
    const projectId = projectPath.split("/")[2];
    const made = [];
    for (const name of [`bulk-a.${zone}`, `bulk-b.${zone}`]) {
      const r = await apiCall("POST", `/projects/${projectId}/certificates`, { token, body: { common_name: name } });
      assert.equal(r.status, 202, JSON.stringify(r.json));
      made.push({ name, id: r.json.certificate.id });
    }
    const [listed] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/certificates?") && r.url().includes("search=bulk-")),
      page.goto(`${projectPath}/certificates?search=bulk-&sort=common_name&order=asc`),
    ]);
    await page.getByRole("link", { name: made[1].name }).waitFor();
    // Two certificates make a page above 1 KiB: the browser asked for gzip and got it.
    assert.equal((await listed.allHeaders())["content-encoding"], "gzip");

    // The CSV of what the filters match: both, and nothing else.
    const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    assert.equal(csv.suggestedFilename(), "certificates.csv");
    const lines = readFileSync(await csv.path(), "utf8").trimEnd().split("\r\n");
    assert.match(lines[0], /^id,common_name,sans,status,days_left,/);
    assert.deepEqual(lines.slice(1).map((l) => l.split(",")[1]), made.map((m) => m.name));

    // Both selected, once issued: renewed in one go, then given to a module in one go.
    const certOf = async (id) => (await apiCall("GET", `/projects/${projectId}/certificates/${id}`, { token: await freshAdminToken() })).json.certificate;
    const allActive = async () => (await Promise.all(made.map((m) => certOf(m.id)))).every((c) => c?.status === "active");
    await waitFor("both bulk certificates to be issued", allActive, 60000, 500);
    await page.getByRole("button", { name: "Select this page" }).click();
    await page.getByText("2 certificates selected").waitFor();
    const versions = await Promise.all(made.map(async (m) => (await certOf(m.id)).serial_number));
    await page.getByRole("button", { name: "Renew selected" }).click();
    await page.getByRole("status", { name: "Renewal: results" }).filter({ hasText: "Renewal: 2 done." }).waitFor();
    await waitFor("both bulk renewals to complete", async () => {
      const now = await Promise.all(made.map((m) => certOf(m.id)));
      return now.every((c, i) => c.status === "active" && c.serial_number !== versions[i]);
    }, 60000, 500);
    await page.getByRole("status", { name: "Renewal: results" }).getByRole("button", { name: "Dismiss" }).click();
    await page.getByLabel("Module").selectOption({ label: "deploy hooks (webhook)" });
    await page.getByRole("button", { name: "Distribute selected" }).click();
    await page.getByRole("status", { name: "Distribution: results" }).filter({ hasText: "Distribution: 2 done." }).waitFor();
    for (const m of made) {
      const d = await apiCall("GET", `/projects/${projectId}/certificates/${m.id}/distributions`, { token: await freshAdminToken() });
      assert.equal(d.json.length, 1, JSON.stringify(d.json));
      assert.equal(d.json[0].module_name, "deploy hooks");
      // Removed again elsewhere: a certificate with a distribution cannot be deleted.
      const gone = await apiCall("DELETE", `/projects/${projectId}/certificates/${m.id}/distributions/${d.json[0].id}`, { token: await freshAdminToken() });
      assert.equal(gone.status, 204, JSON.stringify(gone.json));
    }

    // One is deleted elsewhere before the bulk delete runs: one done, one failed, the failure
    // named.
    const gone = await apiCall("DELETE", `/projects/${projectId}/certificates/${made[0].id}`, { token });
    assert.equal(gone.status, 204, JSON.stringify(gone.json));
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Delete selected" }).click();
    const results = page.getByRole("alert", { name: "Delete: results" });
    await results.waitFor();
    assert.match((await results.textContent()).replace(/\s+/g, " "), new RegExp(`Delete: 1 done, 1 failed\\..*${made[0].name.replace(/\./g, "\\.")}: `));
    // The one that was deleted here leaves the selection and the list; the failed one stays selected.
    await page.getByText("1 certificate selected").waitFor();
    await page.getByText("No certificate matches.").waitFor();
    await screenshot(page, "certificates-bulk");
    await page.getByRole("button", { name: "Clear selection" }).click();
    assert.equal(await page.getByRole("region", { name: "Selected certificates" }).count(), 0);
    assert.ok(await results.isVisible(), "the results left with the selection");
  });

  await step("the audit log filters by type, person and dates, and names what still exists", async () => {
    await nav(page, "Audit log").click();
    // The selects list what the server's catalog says the log records: picking a type narrows
    // the actions to that type's.
    await page.getByLabel("Resource type").selectOption({ label: "certificate" });
    await page.waitForURL(/resource_type=certificate/);
    const offered = await page.getByLabel("Action").locator("option").evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
    assert.ok(offered.includes("certificate.delete") && offered.every((a) => a.startsWith("certificate.")), offered.join(" "));
    await page.getByLabel("Action").selectOption("certificate.delete");
    await page.waitForURL(/action=certificate\.delete/);
    await page.getByRole("cell", { name: /certificate\.create/ }).first().waitFor({ state: "detached" });
    await page.getByRole("cell", { name: /certificate\.delete/ }).first().waitFor();
    await page.getByLabel("Action").selectOption("");
    await page.waitForURL((u) => !u.searchParams.has("action"));
    await page.getByLabel("Who").selectOption({ label: admin.username });
    // yyyy-mm-dd in the browser's zone (the same machine's); from yesterday, should the run
    // cross midnight.
    const day = (offset) => new Date(Date.now() + offset * 86400000).toLocaleDateString("en-CA");
    await page.getByLabel("From").fill(day(-1));
    await page.getByLabel("To").fill(day(0));
    await page.waitForURL(/to=/);
    // The certificate that exists is named and linked; the deleted ones are not linked (their
    // ids show, and the name they had is in the entry's details).
    await page.getByRole("link", { name: commonName }).first().waitFor();
    await page.getByRole("cell", { name: /certificate\.delete/ }).first().waitFor();
    assert.equal(await page.getByRole("link", { name: `bulk-b.${zone}` }).count(), 0);
    assert.equal(await page.getByRole("cell", { name: /license\.activate/ }).count(), 0, "not filtered by resource type");
    await screenshot(page, "audit");
    await page.getByLabel("To").fill(day(2));
    await page.getByLabel("From").fill(day(2));
    await page.getByText("No entries match.").waitFor();
  });

  await step("an issuance that cannot succeed goes dead, and is dismissed from the dashboard, audited", async () => {
    // A zone whose DNS credential holds the wrong TSIG key: bind9 refuses every update.
    const token = await freshAdminToken();
    const projectId = projectPath.split("/")[2];
    const cred = await apiCall("POST", `/projects/${projectId}/dns-credentials`, {
      token,
      body: { name: "wrong key", provider: "rfc2136", settings: { server: env("DNS_SERVER"), key_name: env("TSIG_KEY_NAME") }, secret: Buffer.from("not the right key at all").toString("base64") },
    });
    assert.equal(cred.status, 201, JSON.stringify(cred.json));
    const broken = await apiCall("POST", `/projects/${projectId}/zones`, { token, body: { domain: `broken.${zone}`, dns_credential_id: cred.json.dns_credential.id } });
    assert.equal(broken.status, 201, JSON.stringify(broken.json));
    const name = `www.broken.${zone}`;
    const cert = await apiCall("POST", `/projects/${projectId}/certificates`, { token, body: { common_name: name } });
    assert.equal(cert.status, 202, JSON.stringify(cert.json));
    const jobId = cert.json.job.id;
    // Three attempts with the short backoff this server is given (worker.backoff_base).
    await waitFor("the issuance to go dead", async () => {
      const r = await apiCall("GET", `/projects/${projectId}/jobs/${jobId}`, { token: await freshAdminToken() });
      return r.json.job?.status === "dead";
    }, 60000, 500);
    await nav(page, "Dashboard").click();
    const item = page.locator("li", { hasText: name });
    await item.getByRole("button", { name: "Dismiss" }).click();
    await item.waitFor({ state: "detached" });
    await page.reload();
    await page.getByRole("heading", { name: "Recent failed jobs" }).waitFor();
    await page.getByText("No failed jobs.").waitFor();
    // Still listed where all jobs are, marked; and the dismissal is in the audit log.
    const job = await apiCall("GET", `/projects/${projectId}/jobs/${jobId}`, { token: await freshAdminToken() });
    assert.equal(job.json.job.status, "dead");
    assert.ok(job.json.job.dismissed_at, "no dismissed_at");
    const audit = await apiCall("GET", "/audit-logs?action=job.dismiss", { token: await freshAdminToken() });
    assert.equal(audit.json.total, 1, JSON.stringify(audit.json));
    assert.equal(audit.json.logs[0].resource_id, jobId);
  });

  await step("the project's issuance policy refuses a certificate outside it; a certificate's renewal timing changes", async () => {
    await nav(page, "Configuration").click();
    await tab(page, "Issuance policy").click();
    const form = page.getByRole("form", { name: "Issuance settings" });
    await form.waitFor();
    await form.getByLabel("Add an ACME account").selectOption({ label: "pebble (Pebble)" });
    await form.getByRole("button", { name: "Add", exact: true }).click();
    await form.getByText("1. pebble (Pebble)").waitFor();
    await form.getByLabel("Allowed name suffixes").fill("elsewhere.test");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByText("Saved.").waitFor();
    await page.reload();
    await form.getByText("1. pebble (Pebble)").waitFor();
    assert.equal(await form.getByLabel("Allowed name suffixes").inputValue(), "elsewhere.test");

    await nav(page, "Certificates").click();
    await page.getByRole("button", { name: "New certificate" }).click();
    await page.getByLabel("Common name").fill(`policy.${zone}`);
    await page.getByRole("button", { name: "Request certificate" }).click();
    await page.getByRole("alert").filter({ hasText: "outside the project's policy" }).waitFor();
    // Each broken rule is listed on its own.
    await page.locator("li", { hasText: `policy.${zone} not under an allowed suffix (elsewhere.test)` }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();

    await nav(page, "Configuration").click();
    await tab(page, "Issuance policy").click();
    await form.getByLabel("Allowed name suffixes").fill("");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByText("Saved.").waitFor();
    await screenshot(page, "issuance-policy");

    await page.goto(certPath);
    await page.getByRole("button", { name: "Change renewal and issuers" }).click();
    const edit = page.getByRole("form", { name: "Change renewal and issuers" });
    await edit.getByRole("group", { name: "Issuers (ACME accounts, in the order tried)" }).waitFor();
    await edit.getByLabel("Renew", { exact: true }).selectOption("days");
    await edit.getByLabel("Days before expiry").fill("20");
    // Only what changed is sent (the issuer preference sent again would end a failover).
    const [patch] = await Promise.all([page.waitForRequest((r) => r.method() === "PATCH" && r.url().includes("/certificates/")), edit.getByRole("button", { name: "Save" }).click()]);
    assert.deepEqual(JSON.parse(patch.postData()), { renewal_threshold_days: 20 });
    const renew = page.locator("dt", { hasText: /^Renew$/ }).locator("xpath=following-sibling::dd");
    await renew.filter({ hasText: "20 days before expiry" }).waitFor();
  });

  await step("at 360 px wide nothing overflows the page", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    for (const [path, shot] of [
      [projectPath, "mobile-dashboard"],
      [`${projectPath}/certificates`, "mobile-certificates"],
      [certPath, "mobile-certificate"],
      ["/audit", "mobile-audit"],
      ["/ca-providers", null],
      [`${projectPath}/config/issuance`, null],
    ]) {
      await page.goto(path);
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      await page.waitForLoadState("networkidle");
      await sleep(300);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 362, `${path} is ${width} px wide at 360`);
      if (shot) await screenshot(page, shot);
    }
    // A module's form with its table of targets, at 360 px.
    await page.goto(`${projectPath}/config/modules`);
    await page.getByRole("article", { name: "deploy hooks" }).getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("URL, target 1").waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 362, "the module form overflows at 360");
    await page.getByRole("heading", { name: "Targets" }).scrollIntoViewIfNeeded();
    await screenshot(page, "mobile-module-form");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await step("a viewer is offered no create or renew, and a direct call is refused", async () => {
    const viewer = { username: "viewer.one", password: "viewer password 1" };
    const token = await freshAdminToken();
    const created = await apiCall("POST", "/users", { token, body: { ...viewer, org_role: "viewer" } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const projectId = projectPath.split("/")[2];
    assert.equal((await apiCall("PUT", `/projects/${projectId}/members/${created.json.user.id}`, { token, body: { role: "viewer" } })).status, 200);
    const { page: vp } = await newPage("viewer");
    await signIn(vp, viewer);
    await vp.getByRole("button", { name: "Sign out" }).waitFor();
    await vp.goto(`${projectPath}/certificates`);
    await vp.getByRole("link", { name: commonName }).waitFor();
    assert.equal(await vp.getByRole("button", { name: "New certificate" }).count(), 0);
    for (const kind of ["acme-accounts", "dns-credentials", "zones", "modules", "notification-channels"]) {
      await vp.goto(`${projectPath}/config/${kind}`);
      await vp.getByRole("heading", { name: "Configuration" }).waitFor();
      await vp.waitForLoadState("networkidle");
      for (const name of [/^New /, /^Edit$/, /^Delete$/, /^Test$/, /^Validate$/, /^Health check$/, /^Send test$/]) {
        assert.equal(await vp.getByRole("button", { name }).count(), 0, `a viewer is offered ${name} on ${kind}`);
      }
    }
    await vp.goto(`${projectPath}/config/issuance`);
    await vp.getByRole("form", { name: "Issuance settings" }).waitFor();
    await vp.waitForLoadState("networkidle");
    assert.equal(await vp.getByRole("button", { name: "Save" }).count(), 0, "a viewer is offered Save on the issuance policy");
    await vp.goto("/ca-providers");
    await vp.getByRole("article", { name: "Pebble" }).waitFor();
    for (const name of [/^New /, /^Edit$/, /^Delete$/, /^Disable$/, /^Read directory again$/]) {
      assert.equal(await vp.getByRole("button", { name }).count(), 0, `a viewer is offered ${name} on CA providers`);
    }
    await vp.goto(`${projectPath}/certificates`);
    await vp.getByRole("link", { name: commonName }).click();
    await vp.getByRole("heading", { name: commonName }).waitFor();
    for (const name of ["Renew now", "Delete", "Download with key", "Change renewal and issuers"]) {
      assert.equal(await vp.getByRole("button", { name }).count(), 0, `a viewer is offered "${name}"`);
    }
    assert.equal(await nav(vp, "Users").count(), 0);
    const status = await vp.evaluate(async (path) => {
      const csrf = document.cookie.split("; ").find((c) => c.startsWith("csrf_token="))?.split("=")[1] ?? "";
      const r = await fetch(`/api/v1${path.replace(/^\/p\//, "/projects/")}/renew`, { method: "POST", headers: { "X-CSRF-Token": decodeURIComponent(csrf) } });
      return r.status;
    }, certPath);
    assert.equal(status, 403);
    await vp.context().close();
  });

  await step("a person changes their own password under Profile, and their other session ends", async () => {
    const viewer = { username: "viewer.one", password: "viewer password 1" };
    const { page: other } = await newPage("viewer-elsewhere");
    await signIn(other, viewer);
    await other.getByRole("button", { name: "Sign out" }).waitFor();
    const { page: vp } = await newPage("viewer-profile");
    await signIn(vp, viewer);
    await vp.getByRole("button", { name: "Sign out" }).waitFor();
    await vp.getByRole("link", { name: /viewer\.one/ }).click();
    await vp.getByRole("heading", { name: "Your profile" }).waitFor();
    const sessionRows = vp.getByRole("table", { name: "Where you are signed in" }).locator("tbody tr");
    // This one, the other one, and the viewer's sign-in of the step before (never signed out).
    await waitFor("the sessions listed", async () => (await sessionRows.count()) === 3, 10000, 200);
    const form = vp.getByRole("form", { name: "Change password" });
    await form.getByLabel("Current password").fill("not my password");
    await form.getByLabel("New password", { exact: true }).fill("viewer password 2");
    await form.getByLabel("New password again").fill("viewer password 2");
    await form.getByRole("button", { name: "Change password" }).click();
    const wrong = form.getByRole("alert");
    await wrong.waitFor();
    assert.match(await wrong.textContent(), /current_password/);
    await form.getByLabel("Current password").fill(viewer.password);
    await form.getByRole("button", { name: "Change password" }).click();
    await vp.getByText("Password changed. Your other sessions have ended.").waitFor();
    await waitFor("one session left", async () => (await sessionRows.count()) === 1, 10000, 200);
    assert.equal((await sessionRows.first().textContent()).includes("This session"), true);
    // This session goes on; the other one is signed out at its next request.
    await vp.goto(`${projectPath}/certificates`);
    await vp.getByRole("link", { name: commonName }).waitFor();
    await other.goto(`${projectPath}/certificates`);
    await other.getByRole("heading", { name: "Sign in to CertSteward" }).waitFor();
    await signIn(other, { username: viewer.username, password: "viewer password 2" });
    await other.getByRole("button", { name: "Sign out" }).waitFor();
    await vp.context().close();
    await other.context().close();
  });

  await step("every page passes axe-core (no serious or critical violations)", async () => {
    // axe is injected from outside the page, which the CSP would block: this context alone
    // bypasses it.
    const { page: ap } = await newPage("axe", { bypassCSP: true });
    const check = async (label) => {
      await ap.addScriptTag({ content: axeSource });
      const result = await ap.evaluate(async () => {
        const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
      });
      const bad = result.filter((v) => v.impact === "serious" || v.impact === "critical");
      const minor = result.filter((v) => !(v.impact === "serious" || v.impact === "critical"));
      if (minor.length) log(`axe ${label}: minor: ${minor.map((v) => `${v.id} (${v.impact})`).join(", ")}`);
      assert.deepEqual(bad, [], `axe on ${label}: ${JSON.stringify(bad, null, 1)}`);
    };
    await ap.goto("/");
    await ap.getByLabel("Username").waitFor();
    await check("login");
    await signIn(ap, admin);
    await ap.getByRole("button", { name: "Sign out" }).waitFor();
    // Read by the page just signed in: by now the set-up token may have outlived its 30 s
    // (jwt.access_token_ttl), and another login could meet the login rate limit.
    const jobPath = await (async () => {
      const jobs = await ap.evaluate(async (project) => (await fetch(`/api/v1/projects/${project}/jobs?page_size=1`)).json(), projectPath.split("/")[2]);
      return `${projectPath}/jobs/${jobs.jobs[0].id}`;
    })();
    const pages = [
      projectPath,
      `${projectPath}/certificates`,
      certPath,
      `${projectPath}/jobs`,
      jobPath,
      `${projectPath}/distributions`,
      ...["acme-accounts", "dns-credentials", "zones", "credentials", "modules", "notification-channels", "notification-rules", "issuance"].map((k) => `${projectPath}/config/${k}`),
      "/ca-providers",
      "/projects",
      `/projects/${projectPath.split("/")[2]}`,
      "/users",
      "/audit",
      "/license",
      "/settings/ldap",
      "/settings/oidc",
      "/profile",
      "/no/such/page",
    ];
    for (const path of pages) {
      await ap.goto(path);
      await ap.getByRole("button", { name: "Sign out" }).waitFor();
      await ap.waitForLoadState("networkidle");
      await check(path);
    }
    log(`axe: ${pages.length + 1} pages checked`);
  });

  await step("first load size", async () => {
    const { page: fresh } = await newPage("size");
    let jsBytes = 0;
    const client = await fresh.context().newCDPSession(fresh);
    await client.send("Network.enable");
    const sizes = new Map();
    client.on("Network.responseReceived", (e) => sizes.set(e.requestId, { url: e.response.url, type: e.type }));
    client.on("Network.loadingFinished", (e) => {
      const r = sizes.get(e.requestId);
      if (r && r.type === "Script") jsBytes += e.encodedDataLength;
    });
    await fresh.goto("/");
    await fresh.getByLabel("Username").waitFor();
    await fresh.waitForLoadState("networkidle");
    const built = process.env.UI_SIZES ? JSON.parse(readFileSync(process.env.UI_SIZES, "utf8")) : null;
    log(`budget: first load JavaScript over the wire ${(jsBytes / 1024).toFixed(1)} kB (headers included; bundle ${built ? (built.js_gzip_bytes / 1024).toFixed(1) : "?"} kB gzip; budget 150 kB)`);
    await fresh.context().close();
  });

  await step("every action this run recorded in the audit log is one the catalog lists", async () => {
    const token = await freshAdminToken();
    const catalog = await apiCall("GET", "/catalog", { token });
    const listed = new Map(catalog.json.audit_actions.map((a) => [a.name, a.resource_type]));
    const seen = new Set();
    for (let page = 1; page <= 50; ++page) {
      const r = await apiCall("GET", `/audit-logs?page=${page}&page_size=100`, { token });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      for (const e of r.json.logs) {
        assert.equal(listed.get(e.action), e.resourceType, `${e.action} on ${e.resourceType} is not in the catalog`);
        seen.add(e.action);
      }
      if (page * 100 >= r.json.total) break;
    }
    assert.ok(seen.size >= 25, `only ${seen.size} actions seen`);
    log(`audit: ${seen.size} of the catalog's ${listed.size} actions recorded by this run, each listed`);
  });

  await step("the refresh and OTP checks", async () => {
    const problems = (await Promise.all([refreshCheck, otpCheck])).filter(Boolean);
    assert.deepEqual(problems, [], problems.join("\n"));
  });

  await step("sign out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to CertSteward" }).waitFor();
    const cookies = await page.context().cookies();
    assert.ok(!cookies.some((c) => c.name === "access_token" && c.value), "the access cookie survived sign-out");
  });

  // Performance is printed, not asserted: it is a timing (total blocking time, under Lighthouse's
  // 4x CPU slow-down, on a shared machine running other tests). bench/ui_budget.sh reports it on
  // 100,000 certificates; docs/performance.md keeps the figures.
  await step("Lighthouse: the sign-in page and the signed-in pages score 100 for accessibility and best practices, with layout shift under 0.1", async () => {
    // A session of its own (one sign-in), kept fresh before each page.
    const session = await signedInSession(base, admin);
    const pages = [
      { label: "sign-in", path: "/login", signedIn: false },
      { label: "dashboard", path: projectPath, signedIn: true },
      { label: "certificates", path: `${projectPath}/certificates`, signedIn: true },
      { label: "certificate", path: certPath, signedIn: true },
      { label: "jobs", path: `${projectPath}/jobs`, signedIn: true },
      { label: "audit", path: "/audit", signedIn: true },
    ];
    const results = await scorePages({ chromePath: env("CHROMIUM"), base, pages, session, log });
    const short = [];
    for (const r of results) {
      if (r.runtimeError) short.push(`${r.label}: ${r.runtimeError}`);
      // A signed-in page that landed on the sign-in form was not measured signed in.
      const signedIn = r.requests.some((q) => q.path === "/api/v1/auth/me" && q.status === 200);
      if (pages.find((p) => p.label === r.label).signedIn !== signedIn) short.push(`${r.label}: ${signedIn ? "signed in" : "not signed in"} (${new URL(r.finalUrl).pathname})`);
      if (r.accessibility < 100) short.push(`${r.label}: accessibility ${r.accessibility}`);
      if (r.bestPractices < 100) short.push(`${r.label}: best practices ${r.bestPractices}`);
      if (!(r.cls < 0.1)) short.push(`${r.label}: CLS ${r.cls.toFixed(3)}`);
    }
    assert.deepEqual(short, [], `${short.join("; ")}\n${results.map((r) => `${r.label}: ${r.failing.join(", ")}; shifts: ${r.shifts.join(" | ")}`).join("\n")}`);
    log(`lighthouse: performance ${results.map((r) => `${r.label} ${r.performance}`).join(", ")} (printed, not asserted)`);
  });

  assert.deepEqual(consoleErrors, [], `console errors:\n${consoleErrors.join("\n")}`);
  assert.equal(provokedRuleErrors.length, provoked422, `422 answers:\n${provokedRuleErrors.join("\n")}`);
  assert.equal(provokedNotFound.length, 1, `404 answers:\n${provokedNotFound.join("\n")}`);
  log(`console: no errors (${expectedNetworkErrors.length} expected 401/403 network notices)`);
  log("all browser checks passed");
} catch (e) {
  console.error(e.stack ?? String(e));
  if (consoleErrors.length) console.error(`console errors:\n${consoleErrors.join("\n")}`);
  exitCode = 1;
} finally {
  await browser.close();
}
process.exit(exitCode);

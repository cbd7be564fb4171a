// Lighthouse (the npm package, in Debian's Chromium) against the running server: the sign-in
// page, then signed-in pages, each scored for performance, accessibility and best practices with
// Lighthouse's default (mobile, simulated throttling) settings. A signed-in page gets the
// session's cookies set through the DevTools protocol before it loads (a Cookie header alone
// would not reach the page's own requests or `document.cookie`).
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { chromium } from "playwright-core";

// Set-Cookie headers of an answer as cookies for Playwright's addCookies.
export function cookiesOf(headers, host) {
  return headers.getSetCookie().map((line) => {
    const [pair, ...attributes] = line.split(";").map((s) => s.trim());
    const eq = pair.indexOf("=");
    const cookie = { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: "/", httpOnly: false, secure: false, sameSite: "Lax" };
    for (const a of attributes) {
      const [key, value = ""] = a.split("=");
      const k = key.toLowerCase();
      if (k === "path") cookie.path = value;
      else if (k === "httponly") cookie.httpOnly = true;
      else if (k === "secure") cookie.secure = true;
      else if (k === "samesite" && value) cookie.sameSite = value[0].toUpperCase() + value.slice(1).toLowerCase();
    }
    return cookie;
  });
}

// A session of its own for Lighthouse's browser: one sign-in, then before each page fresh cookies
// (the access token lives 30 s on the test server: a page must not start on an expired one, whose
// 401 the console would report). `jar`: the browser's cookies after the last page, whose refresh
// token is the newest should a page have refreshed by itself (a spent one would end the login).
export async function signedInSession(base, { username, password }) {
  const post = async (path, body) => {
    const r = await fetch(`${base}/api/v1${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
    return { headers: r.headers, json: await r.json() };
  };
  // The server counts sign-ins per user and address in whole minutes: the browser test's own
  // sign-ins can fill the current one. Then wait for the next minute, once.
  const login = await post("/auth/login", { username, password }).catch(async (e) => {
    if (!String(e.message).includes(": 429 ")) throw e;
    await new Promise((done) => setTimeout(done, 61000 - (Date.now() % 60000)));
    return post("/auth/login", { username, password });
  });
  // The sign-in's three cookies (a refresh by body answers the tokens in JSON, not as cookies).
  const cookies = cookiesOf(login.headers, new URL(base).hostname);
  const names = cookies.map((c) => c.name).sort().join(",");
  if (names !== "access_token,csrf_token,refresh_token") throw new Error(`the sign-in set the cookies ${names}`);
  let refresh = login.json.refresh_token;
  return async (jar = []) => {
    refresh = jar.find((c) => c.name === "refresh_token" && c.value)?.value ?? refresh;
    const { json } = await post("/auth/refresh", { refresh_token: refresh });
    refresh = json.refresh_token;
    const fresh = { access_token: json.access_token, refresh_token: json.refresh_token };
    return cookies.map((c) => ({ ...c, value: fresh[c.name] ?? c.value }));
  };
}

// Scores each of `pages` ({label, path, signedIn}); `session(jar)` gives fresh session cookies
// (signedInSession).
export async function scorePages({ chromePath, base, pages, session, log }) {
  const chrome = await chromeLauncher.launch({
    chromePath,
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    logLevel: "error",
  });
  const cdp = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
  try {
    const context = cdp.contexts()[0];
    const results = [];
    for (const page of pages) {
      const jar = await context.cookies();
      await context.clearCookies();
      if (page.signedIn) await context.addCookies(await session(jar));
      // A run that measured nothing (Lighthouse's runtimeError: the page did not paint in time on
      // a busy machine, or NO_NAVSTART, a trace Lighthouse itself says to record again) is run
      // again with fresh cookies, up to three runs in all; a third such run is reported as it is,
      // its error in runtimeError, for the caller to fail on. A run that measured is judged as is.
      let lhr;
      const runs = 3;
      for (let attempt = 0; attempt < runs; attempt++) {
        if (attempt > 0 && page.signedIn) {
          const again = await context.cookies();
          await context.clearCookies();
          await context.addCookies(await session(again));
        }
        const run = await lighthouse(base + page.path, {
          port: chrome.port,
          output: "json",
          logLevel: "error",
          onlyCategories: ["performance", "accessibility", "best-practices"],
        });
        lhr = run.lhr;
        if (!lhr.runtimeError && lhr.audits["cumulative-layout-shift"]?.numericValue !== undefined) break;
        log(`lighthouse: ${page.label}: no measurement (${lhr.runtimeError?.code ?? "no layout-shift figure"}: ${lhr.runtimeError?.message ?? ""})${attempt + 1 < runs ? "; once more" : ""}`);
      }
      const score = (c) => Math.round((lhr.categories[c].score ?? 0) * 100);
      // What kept a category below 100: its audits that did not pass, by id.
      const failing = Object.values(lhr.audits)
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual" && a.scoreDisplayMode !== "notApplicable")
        .map((a) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ""}`);
      const result = {
        path: page.path,
        label: page.label,
        finalUrl: lhr.finalDisplayedUrl,
        performance: score("performance"),
        accessibility: score("accessibility"),
        bestPractices: score("best-practices"),
        cls: lhr.audits["cumulative-layout-shift"]?.numericValue ?? NaN,
        lcp: lhr.audits["largest-contentful-paint"]?.numericValue ?? NaN,
        tbt: lhr.audits["total-blocking-time"]?.numericValue ?? NaN,
        runtimeError: lhr.runtimeError?.message ?? (lhr.audits["cumulative-layout-shift"]?.numericValue === undefined ? "no layout-shift figure" : undefined),
        // Each layout shift, with the element that moved (for the message of a failure).
        shifts: (lhr.audits["layout-shifts"]?.details?.items ?? []).map((i) => `${i.score.toFixed(3)} ${i.node?.selector ?? ""} ${i.node?.snippet ?? ""}`.trim()),
        requests: (lhr.audits["network-requests"]?.details?.items ?? []).map((i) => ({ path: new URL(i.url).pathname, status: i.statusCode })),
        failing,
      };
      log(`lighthouse: ${page.label}: performance ${result.performance}, accessibility ${result.accessibility}, best practices ${result.bestPractices}, CLS ${result.cls.toFixed(3)}, LCP ${Math.round(result.lcp)} ms${failing.length ? `; below full marks: ${failing.join(", ")}` : ""}${result.shifts.length ? `; shifts: ${result.shifts.join(" | ")}` : ""}`);
      results.push(result);
    }
    return results;
  } finally {
    await cdp.close().catch(() => {});
    await chrome.kill();
  }
}

// The UI's budgets, measured in headless Chromium and printed (not asserted: the machines are
// shared and noisy): compressed JavaScript of the first load, how long the certificates page
// takes to show a page after the API has answered, on a project with many certificates, and
// Lighthouse's scores (default mobile settings) of the sign-in page and signed-in pages.
// Usage: CERTSTEWARD_URL=... CERTSTEWARD_ADMIN=... CERTSTEWARD_ADMIN_PASSWORD=... PROJECT=...
//        CHROMIUM=/usr/bin/chromium node ui/tests/budget.mjs
import { chromium } from "playwright-core";
import { scorePages, signedInSession } from "./lighthouse.mjs";

const base = process.env.CERTSTEWARD_URL;
const project = process.env.PROJECT;
const rounds = Number(process.env.ROUNDS ?? "10");
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
const page = await context.newPage();

// First load: script bytes over the wire (compressed), before sign-in.
const cdp = await context.newCDPSession(page);
await cdp.send("Network.enable");
const kinds = new Map();
let scriptBytes = 0;
let allBytes = 0;
cdp.on("Network.responseReceived", (e) => kinds.set(e.requestId, e.type));
cdp.on("Network.loadingFinished", (e) => {
  allBytes += e.encodedDataLength;
  if (kinds.get(e.requestId) === "Script") scriptBytes += e.encodedDataLength;
});
await page.goto("/");
await page.getByLabel("Username").waitFor();
await page.waitForLoadState("networkidle");
console.log(`first load: JavaScript ${(scriptBytes / 1024).toFixed(1)} kB compressed over the wire (budget 150 kB); everything ${(allBytes / 1024).toFixed(1)} kB`);

await page.getByLabel("Username").fill(process.env.CERTSTEWARD_ADMIN);
await page.getByLabel("Password").fill(process.env.CERTSTEWARD_ADMIN_PASSWORD);
await page.getByRole("button", { name: "Sign in" }).click();
await page.getByRole("button", { name: "Sign out" }).waitFor();

// One measured action: from the moment the list answer has fully arrived (Resource Timing's
// responseEnd) to the frame after the table shows the new page (a MutationObserver on the
// table body, then requestAnimationFrame).
async function measure(label, action) {
  await page.evaluate(() => {
    performance.clearResourceTimings();
    window.__rendered = new Promise((resolve) => {
      // The table's first row as it is now: the page is shown when it is another (the table body
      // may be replaced whole, so the page's main region is watched).
      const firstRow = () => document.querySelector("tbody tr")?.textContent ?? "";
      const before = firstRow();
      const observer = new MutationObserver(() => {
        if (firstRow() === before) return;
        observer.disconnect();
        requestAnimationFrame(() => resolve(performance.now()));
      });
      observer.observe(document.querySelector("main") ?? document.body, { childList: true, subtree: true, characterData: true });
      setTimeout(() => resolve(NaN), 10000); // an action that changed nothing is not a sample
    });
  });
  const started = Date.now();
  await action();
  const result = await page.evaluate(async () => {
    const rendered = await window.__rendered;
    const entry = performance
      .getEntriesByType("resource")
      .filter((e) => e.name.includes("/certificates?"))
      .pop();
    return { rendered, answered: entry ? entry.responseEnd : NaN, requested: entry ? entry.startTime : NaN };
  });
  return { label, api: result.answered - result.requested, render: result.rendered - result.answered, wall: Date.now() - started };
}

await page.goto(`/p/${project}/certificates`);
await page.locator("tbody tr").first().waitFor();
const total = (await page.locator(".pager span").textContent()).trim();
console.log(`certificates page: ${total}`);

const samples = [];
for (let i = 0; i < rounds; i++) {
  samples.push(await measure("next page", () => page.getByRole("button", { name: "Next" }).click()));
  samples.push(await measure("sort", () => page.getByLabel("Sort by").selectOption(i % 2 ? "common_name" : "expires_at")));
  samples.push(await measure("order", () => page.getByLabel("Order").selectOption(i % 2 ? "desc" : "asc")));
  samples.push(await measure("search", () => page.getByLabel("Search by any name").fill(`host${i + 1}`)));
}
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
for (const label of ["next page", "sort", "order", "search"]) {
  const s = samples.filter((x) => x.label === label && Number.isFinite(x.render));
  if (s.length === 0) {
    console.log(`${label}: no sample (the table did not change within 10 s of the action)`);
    continue;
  }
  const render = s.map((x) => x.render);
  const api = s.map((x) => x.api);
  console.log(
    `${label}: shown ${pct(render, 50).toFixed(1)} ms (p50) / ${pct(render, 95).toFixed(1)} ms (p95) after the API answered (budget 200 ms); the API took ${pct(api, 50).toFixed(1)} ms (p50); ${s.length} samples`,
  );
}
await browser.close();

// Lighthouse, signed in with a session of its own (cookies set through the DevTools protocol).
const session = await signedInSession(base, { username: process.env.CERTSTEWARD_ADMIN, password: process.env.CERTSTEWARD_ADMIN_PASSWORD });
const scored = await scorePages({
  chromePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  base,
  pages: [
    { label: "sign-in", path: "/login", signedIn: false },
    { label: "dashboard", path: `/p/${project}`, signedIn: true },
    { label: "certificates", path: `/p/${project}/certificates`, signedIn: true },
    { label: "jobs", path: `/p/${project}/jobs`, signedIn: true },
    { label: "audit", path: "/audit", signedIn: true },
  ],
  session,
  log: () => {},
});
for (const r of scored) {
  console.log(
    `lighthouse ${r.label}: performance ${r.performance} (goal 95), accessibility ${r.accessibility}, best practices ${r.bestPractices}, CLS ${r.cls.toFixed(3)}, LCP ${Math.round(r.lcp)} ms, TBT ${Math.round(r.tbt)} ms`,
  );
}

// allPages (ui/src/api/all-pages.ts), which the pickers read their lists with: every page in
// order, no page asked twice, at most the cap. Run by the ui.all_pages test.
// Usage: node tests/all-pages.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const source = readFileSync(join(here, "../src/api/all-pages.ts"), "utf8");
const { code } = transformSync(source, { loader: "ts", format: "esm" });
const { allPages } = await import("data:text/javascript," + encodeURIComponent(code));

// A server list of `total` items answering pages as the API does (page_size clamped to 100).
function server(total) {
  const asked = [];
  const fetchPage = async ({ page, page_size }) => {
    asked.push(page);
    const size = Math.min(page_size, 100);
    const items = [];
    for (let i = (page - 1) * size; i < Math.min(total, page * size); i++) items.push({ id: `item-${i}` });
    return { things: items, total, page, page_size: size };
  };
  return { fetchPage, asked };
}

const cases = [
  { total: 0, cap: 1000, items: 0, pages: [1] },
  { total: 7, cap: 1000, items: 7, pages: [1] },
  { total: 100, cap: 1000, items: 100, pages: [1] },
  { total: 101, cap: 1000, items: 101, pages: [1, 2] },
  { total: 250, cap: 1000, items: 250, pages: [1, 2, 3] },
  { total: 2500, cap: 1000, items: 1000, pages: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
  { total: 450, cap: 150, items: 150, pages: [1, 2] },
];
for (const c of cases) {
  const s = server(c.total);
  const result = await allPages(s.fetchPage, "things", c.cap);
  const what = `total ${c.total}, cap ${c.cap}`;
  assert.equal(result.things.length, c.items, what);
  assert.deepEqual(result.things.map((t) => t.id), Array.from({ length: c.items }, (_, i) => `item-${i}`), what);
  assert.deepEqual([...s.asked].sort((a, b) => a - b), c.pages, what);
  assert.equal(result.total, c.total, what); // the server's count, to say when more exist
}
console.log(`allPages: ${cases.length} cases`);

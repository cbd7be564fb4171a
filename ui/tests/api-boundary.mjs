// The UI's one way to the API is the modules of ui/src/api: outside that folder no source names an
// /api/v1 address, calls the client directly (call, callRaw, address) or imports the generated
// schema (pages use the names of api/types.ts). Run by the ui.api_boundary test.
// Usage: node tests/api-boundary.mjs
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const src = join(dirname(fileURLToPath(import.meta.url)), "../src");
const apiDir = join(src, "api") + sep;
// What a page may take from the client: errors and their words, the session's end, a cookie.
const allowedFromClient = new Set(["ApiError", "describe", "onSessionEnded", "cookie"]);

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.(ts|tsx|js|jsx|mjs)$/.test(entry.name)) yield path;
  }
}

const problems = [];
for (const file of sources(src)) {
  if (file.startsWith(apiDir)) continue;
  const name = relative(join(src, ".."), file);
  const text = readFileSync(file, "utf8");
  text.split("\n").forEach((line, i) => {
    if (line.includes("/api/v1")) problems.push(`${name}:${i + 1}: names an API address (/api/v1); call a module of src/api instead`);
  });
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']/g)) {
    const from = m[3];
    if (/(^|\/)api\/schema\.gen$/.test(from)) problems.push(`${name}: imports the generated schema; use the names of api/types.ts`);
    if (!/(^|\/)api\/client$/.test(from)) continue;
    for (const imported of m[2].split(",").map((s) => s.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]).filter(Boolean)) {
      if (!allowedFromClient.has(imported)) problems.push(`${name}: imports ${imported} from api/client; call a module of src/api instead`);
    }
  }
  if (/import\s+\*\s+as\s+\w+\s+from\s+["'][^"']*api\/(client|schema\.gen)["']/.test(text)) problems.push(`${name}: imports all of api/client or the schema`);
}

if (problems.length) {
  console.error(problems.join("\n"));
  console.error(`${problems.length} problem(s): the API is reached only through the modules of ui/src/api`);
  process.exit(1);
}
console.log("ui: only ui/src/api reaches the API");

// docs/openapi.yaml against the router: every route that `certsteward routes` prints must be an
// operation of the document (":name" path parameters written "{name}"), and every operation of
// the document must be a route, except the transport's own endpoints marked
// x-certsteward-outside-router (/healthz, /readyz, /metrics). Also checks that the document
// hangs together: valid against the OpenAPI 3.1 schema, every reference resolves, every path parameter is declared,
// every operation has an operationId (unique) and responses, and every schema compiles.
// Usage: node tests/e2e/openapi_routes.mjs BINARY [DOCUMENT]
import { execFileSync } from 'node:child_process';
import { loadDocument, makeValidator, operations, pointer, resolveRef, toTemplate, validateOpenApi } from './openapi_common.mjs';

const [binary, documentPath] = process.argv.slice(2);
if (!binary) {
  console.error('usage: openapi_routes.mjs BINARY [DOCUMENT]');
  process.exit(2);
}

const problems = [];
const doc = loadDocument(documentPath);
const outsideRouter = new Set(['GET /healthz', 'GET /readyz', 'GET /metrics']);

if (!/^3\.1\.\d+$/.test(String(doc.openapi))) problems.push(`openapi is ${doc.openapi}, not 3.1.x`);
const official = await validateOpenApi(doc);
if (official.version !== '3.1' || !official.valid) {
  problems.push(`not a valid OpenAPI 3.1 document (version ${official.version}): ${JSON.stringify(official.errors).slice(0, 2000)}`);
}

// The router's routes, from the packaged binary.
const printed = execFileSync(binary, ['routes'], { encoding: 'utf8', timeout: 30000 });
const routes = new Set();
for (const line of printed.split('\n')) {
  if (!line.trim()) continue;
  const m = /^([A-Z]+) (\/\S*)$/.exec(line.trim());
  if (!m) {
    problems.push(`cannot read the routes line '${line}'`);
    continue;
  }
  routes.add(`${m[1]} ${toTemplate(m[2])}`);
}
if (routes.size < 50) problems.push(`only ${routes.size} routes printed: is that the router?`);

const ops = operations(doc);
const documented = new Set();
const operationIds = new Map();
for (const { key, path, method, op } of ops) {
  if (op['x-certsteward-outside-router']) {
    if (!outsideRouter.has(key)) problems.push(`${key} is marked outside the router but is not a transport endpoint`);
  } else {
    documented.add(key);
  }
  if (!op.operationId) problems.push(`${key} has no operationId`);
  else if (operationIds.has(op.operationId)) problems.push(`${key}: operationId ${op.operationId} is also ${operationIds.get(op.operationId)}'s`);
  else operationIds.set(op.operationId, key);
  if (!op.responses || Object.keys(op.responses).length === 0) problems.push(`${key} has no responses`);
  // Path parameters: exactly the template's, declared in: path and required.
  const wanted = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
  const params = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map((p) => resolveRef(doc, p));
  const declared = params.filter((p) => p.in === 'path').map((p) => p.name).sort();
  if (wanted.join(',') !== declared.join(',')) {
    problems.push(`${key}: path parameters ${JSON.stringify(declared)}, the path has ${JSON.stringify(wanted)}`);
  }
  for (const p of params.filter((x) => x.in === 'path')) {
    if (p.required !== true) problems.push(`${key}: path parameter ${p.name} is not required: true`);
  }
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!/^[1-5]\d\d$/.test(status)) problems.push(`${key}: response '${status}' is not a status code`);
    const r = resolveRef(doc, response);
    if (!r.description) problems.push(`${key} ${status}: no description`);
  }
}
for (const outside of outsideRouter) {
  if (!ops.some((o) => o.key === outside)) problems.push(`${outside} (served by the transport) is missing from the document`);
}

for (const route of routes) {
  if (!documented.has(route)) problems.push(`route ${route} of the router is missing from the document`);
}
for (const key of documented) {
  if (!routes.has(key)) problems.push(`the document names ${key}, which the router lacks`);
}

// Every $ref resolves; every schema (components and inline ones in responses and bodies) compiles.
const walk = (node, at) => {
  if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return;
  if (typeof node.$ref === 'string') {
    try {
      resolveRef(doc, node);
    } catch (e) {
      problems.push(`${at}: ${e.message}`);
    }
  }
  for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
};
walk(doc, '#');
if (problems.length === 0) {
  const validator = makeValidator(doc);
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    try {
      validator(`/${pointer('components', 'schemas', name)}`);
    } catch (e) {
      problems.push(`schema ${name} does not compile: ${e.message}`);
    }
  }
  for (const { path, method, op } of ops) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      for (const media of Object.keys(resolveRef(doc, response).content ?? {})) {
        const base = response.$ref
          ? response.$ref.slice(1)
          : `/${pointer('paths', path, method, 'responses', status)}`;
        try {
          validator(`${base}/${pointer('content', media, 'schema')}`);
        } catch (e) {
          problems.push(`${method.toUpperCase()} ${path} ${status} ${media}: ${e.message}`);
        }
      }
    }
  }
}

for (const p of problems) console.error(`FAIL: ${p}`);
console.log(`${routes.size} routes, ${ops.length} operations in the document (${ops.length - documented.size} outside the router)`);
console.log(problems.length === 0 ? '1 passed, 0 failed' : `0 passed, 1 failed: ${problems.length} problems`);
process.exit(problems.length === 0 ? 0 : 1);

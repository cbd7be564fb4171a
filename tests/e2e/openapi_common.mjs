// Shared by the OpenAPI tests: docs/openapi.yaml loaded, its operations as "METHOD /path" keys,
// and a schema validator over its components (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
// The npm packages (yaml, ajv, ajv-formats, @seriousme/openapi-schema-validator) come from
// ui/node_modules (ui/package.json).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const sourceDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(sourceDir, 'ui', 'package.json'));
const YAML = require('yaml');
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

// The OpenAPI 3.1 schema check of the document itself (the official schema, through
// @seriousme/openapi-schema-validator): {valid, errors}.
export async function validateOpenApi(doc) {
  const entry = require.resolve('@seriousme/openapi-schema-validator');
  const { Validator } = await import(pathToFileURL(entry).href);
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  return { version: validator.version, valid: result.valid, errors: result.errors };
}

export const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function loadDocument(path = join(sourceDir, 'docs', 'openapi.yaml')) {
  return YAML.parse(readFileSync(path, 'utf8'));
}

// Every operation of the document: {key: "GET /api/v1/projects/{project_id}", path, method, op}.
export function operations(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of methods) {
      if (item[method]) out.push({ key: `${method.toUpperCase()} ${path}`, path, method, op: item[method] });
    }
  }
  return out;
}

// "/api/v1/projects/:project_id" (the router's patterns) -> "/api/v1/projects/{project_id}".
export function toTemplate(pattern) {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

// JSON pointer of a property name.
export function pointer(...segments) {
  return segments.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

// A resolver of "#/components/..." references inside the document.
export function resolveRef(doc, value) {
  let v = value;
  for (let i = 0; v && v.$ref && i < 10; i++) {
    if (!v.$ref.startsWith('#/')) throw new Error(`external reference ${v.$ref}`);
    v = v.$ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node, key) => (node === undefined ? undefined : node[key]), doc);
    if (v === undefined) throw new Error(`unresolved reference ${value.$ref}`);
  }
  return v;
}

// Ajv over the whole document (registered as urn:certsteward:openapi, so the schemas' own
// "#/components/schemas/..." references resolve inside it). strict: false because the document
// has OpenAPI keywords around the schemas; formats (date-time, ...) are checked.
export function makeValidator(doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'urn:certsteward:openapi' });
  const cache = new Map();
  // The validator of the schema at `jsonPointer` ("/paths/...") in the document.
  return (jsonPointer) => {
    if (!cache.has(jsonPointer)) {
      cache.set(jsonPointer, ajv.compile({ $ref: `urn:certsteward:openapi#${jsonPointer}` }));
    }
    return cache.get(jsonPointer);
  };
}

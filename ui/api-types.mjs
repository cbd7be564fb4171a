// Generates the UI's API types (src/api/schema.gen.ts) from docs/openapi.yaml: a type per schema
// of components/schemas, and `Operations`, every operation under /api/v1 by "METHOD path" with
// its path, query and header parameters, request body and answer. The file is not committed:
// build.mjs writes it before bundling, and the ui.typecheck test (through the ui.api_types test)
// before type-checking, so the pages are always checked against the API as documented.
// A keyword this generator does not translate stops it rather than being typed loosely.
// Usage: node api-types.mjs (writes the file when its text changed)
import { parse } from "yaml";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const specPath = join(here, "../docs/openapi.yaml");
export const outputPath = join(here, "src/api/schema.gen.ts");
const apiBase = "/api/v1";
const methods = ["get", "put", "post", "patch", "delete"];

// Keywords that say nothing about the TypeScript type (bounds, formats, words).
const annotations = new Set([
  "description", "format", "maxLength", "minLength", "minimum", "maximum", "pattern", "maxItems",
  "minItems", "uniqueItems", "writeOnly", "readOnly", "example", "examples", "default", "title",
  "contentMediaType", "deprecated",
]);
const typing = new Set(["type", "properties", "required", "additionalProperties", "items", "$ref", "oneOf", "anyOf", "allOf", "enum", "const"]);

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name) => (identifier.test(name) ? name : JSON.stringify(name));
const comment = (text, pad) => (text ? `${pad}/** ${String(text).replace(/\s*\n\s*/g, " ").replace(/\*\//g, "*\\/").trim()} */\n` : "");
const refName = (ref, kind) => {
  const prefix = `#/components/${kind}/`;
  if (typeof ref !== "string" || !ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(prefix.length);
};

function typeOf(schema, where, pad = "") {
  if (schema === true || schema === undefined) return "unknown";
  if (typeof schema !== "object" || schema === null) throw new Error(`${where}: not a schema`);
  for (const k of Object.keys(schema)) {
    if (!annotations.has(k) && !typing.has(k)) throw new Error(`${where}: the keyword "${k}" is not translated`);
  }
  if (schema.$ref) return refName(schema.$ref, "schemas");
  if (schema.oneOf || schema.anyOf) return union((schema.oneOf ?? schema.anyOf).map((s, i) => typeOf(s, `${where}/${i}`, pad)));
  if (schema.allOf) return schema.allOf.map((s, i) => wrap(typeOf(s, `${where}/${i}`, pad))).join(" & ");
  if ("const" in schema) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((v) => JSON.stringify(v)));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ["object"] : [];
  if (types.length === 0) return "unknown";
  return union(types.map((t) => single(t, schema, where, pad)));
}

function single(type, schema, where, pad) {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${wrap(typeOf(schema.items, `${where}/items`, pad))}[]`;
    case "object":
      return objectOf(schema, where, pad);
    default:
      throw new Error(`${where}: unknown type ${type}`);
  }
}

function objectOf(schema, where, pad) {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const extra = schema.additionalProperties;
  const extraType = extra === false ? null : typeof extra === "object" ? typeOf(extra, `${where}/additionalProperties`, pad) : names.length ? null : "unknown";
  if (names.length && typeof extra === "object") throw new Error(`${where}: properties beside an additionalProperties schema are not translated`);
  if (!names.length) return extraType ? `{ [key: string]: ${extraType} }` : "Record<string, never>";
  const required = new Set(schema.required ?? []);
  for (const r of required) if (!names.includes(r)) throw new Error(`${where}: "${r}" is required but not a property`);
  const inner = pad + "  ";
  let out = "{\n";
  for (const name of names) {
    const p = properties[name];
    out += comment(p?.description, inner);
    out += `${inner}${key(name)}${required.has(name) ? "" : "?"}: ${typeOf(p, `${where}/${name}`, inner)};\n`;
  }
  return out + pad + "}";
}

const union = (parts) => [...new Set(parts)].join(" | ");
const wrap = (t) => (/^[\w."]+$/.test(t) || t.startsWith("{") ? t : `(${t})`);

// The parameters of an operation (the path's and its own), by where they go.
function parametersOf(doc, pathItem, op, where) {
  const byKey = new Map();
  for (const p of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
    const param = p.$ref ? doc.components.parameters[refName(p.$ref, "parameters")] : p;
    if (!param) throw new Error(`${where}: unknown parameter ${p.$ref}`);
    byKey.set(`${param.in} ${param.name}`, param);
  }
  const groups = { path: {}, query: {}, header: {} };
  for (const param of byKey.values()) {
    if (param.in === "cookie") continue;
    const group = groups[param.in];
    if (!group) throw new Error(`${where}: parameter ${param.name} is in ${param.in}`);
    group[param.name] = param;
  }
  return groups;
}

function parametersType(params, where, pad) {
  const names = Object.keys(params);
  if (!names.length) return "never";
  const schema = {
    type: "object",
    // The words of query parameters only (those of the path and the headers are the same on every
    // operation).
    properties: Object.fromEntries(names.map((n) => [n, { ...params[n].schema, description: params[n].in === "query" ? params[n].description : undefined }])),
    required: names.filter((n) => params[n].required || params[n].in === "path"),
  };
  return objectOf(schema, where, pad);
}

function bodyType(doc, op, where, pad) {
  if (!op.requestBody) return "never";
  const body = op.requestBody.$ref ? doc.components.requestBodies[refName(op.requestBody.$ref, "requestBodies")] : op.requestBody;
  const json = body?.content?.["application/json"];
  if (!json) throw new Error(`${where}: a request body that is not JSON`);
  const t = typeOf(json.schema, `${where}/requestBody`, pad);
  return body.required ? t : `${t} | undefined`;
}

function responseType(doc, op, where, pad) {
  const types = [];
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    if (!/^2/.test(status)) continue;
    const response = r.$ref ? doc.components.responses[refName(r.$ref, "responses")] : r;
    const content = response?.content;
    if (!content) types.push("undefined");
    else if (content["application/json"]) types.push(typeOf(content["application/json"].schema, `${where}/${status}`, pad));
    else types.push("string"); // a file (the client answers text, or the Response when asked)
  }
  // A redirect only (single sign-on): a page the browser is sent to, never read by the client.
  if (!types.length && Object.keys(op.responses ?? {}).some((s) => /^3/.test(s))) return "undefined";
  if (!types.length) throw new Error(`${where}: no 2xx answer`);
  return union(types);
}

export function generateApiTypes(specText) {
  const doc = parse(specText);
  let out = "// Generated by ui/api-types.mjs from docs/openapi.yaml when the UI is built or type-checked.\n";
  out += "// Do not edit and do not commit (ui/.gitignore): change docs/openapi.yaml and build.\n";
  out += "/* eslint-disable */\n\n";
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    out += comment(schema.description, "");
    out += `export type ${name} = ${typeOf(schema, `#/components/schemas/${name}`)};\n\n`;
  }
  out += `/** Every operation under ${apiBase}, by "METHOD path" (the path without ${apiBase}); \`never\` where it has\n`;
  out += " * no such part (no path parameter, no query, no header, no body). */\n";
  out += "export interface Operations {\n";
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith(apiBase + "/")) continue;
    for (const method of methods) {
      const op = item[method];
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const rel = path.slice(apiBase.length);
      const groups = parametersOf(doc, item, op, where);
      const inPath = [...rel.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      if (inPath.join() !== Object.keys(groups.path).sort((a, b) => inPath.indexOf(a) - inPath.indexOf(b)).join()) {
        throw new Error(`${where}: the path's parameters (${inPath}) are not those declared (${Object.keys(groups.path)})`);
      }
      const pad = "    ";
      out += comment([op.operationId, op.summary].filter(Boolean).join(": "), "  ");
      out += `  ${JSON.stringify(`${method.toUpperCase()} ${rel}`)}: {\n`;
      out += `${pad}params: ${parametersType(groups.path, where, pad)};\n`;
      out += `${pad}query: ${parametersType(groups.query, where, pad)};\n`;
      out += `${pad}headers: ${parametersType(groups.header, where, pad)};\n`;
      out += `${pad}body: ${bodyType(doc, op, where, pad)};\n`;
      out += `${pad}response: ${responseType(doc, op, where, pad)};\n`;
      out += "  };\n";
    }
  }
  return out + "}\n";
}

// Writes the file when its text changed (several build trees share ui/src; the rename makes a
// concurrent reader see the old file or the new one, never half of one).
export function writeApiTypes() {
  const text = generateApiTypes(readFileSync(specPath, "utf8"));
  let old = null;
  try {
    old = readFileSync(outputPath, "utf8");
  } catch {
    // not generated yet
  }
  if (old === text) return false;
  const temporary = `${outputPath}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, outputPath);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    console.log(writeApiTypes() ? "ui: wrote src/api/schema.gen.ts" : "ui: src/api/schema.gen.ts is up to date");
  } catch (e) {
    console.error(`ui: cannot generate the API types from docs/openapi.yaml: ${e.message}`);
    process.exit(1);
  }
}

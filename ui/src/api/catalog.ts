// The catalog: what this server offers (event kinds today), described for forms and hints.
import { call } from "./client";

export function getCatalog() {
  return call("GET /catalog");
}

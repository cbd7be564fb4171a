// The licence: its status, and activating a key.
import { call } from "./client";

export function licenseStatus() {
  return call("GET /license/status");
}

export function activateLicense(licenseKey: string) {
  return call("POST /license/activate", { body: { license_key: licenseKey } });
}

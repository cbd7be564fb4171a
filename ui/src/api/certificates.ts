// A project's certificates: the list and its figures, one certificate, renewal, deletion and the
// downloads (a Response, for the page to save as a file).
import { call, callRaw, type QueryOf } from "./client";
import type { CertificateCreate, CertificatePatch, DownloadRequest } from "./schema.gen";

export function listCertificates(projectId: string, query: QueryOf<"GET /projects/{project_id}/certificates">) {
  return call("GET /projects/{project_id}/certificates", { params: { project_id: projectId }, query });
}

// The project's certificates counted by status and expiry (the dashboard).
export function certificateSummary(projectId: string) {
  return call("GET /projects/{project_id}/summary", { params: { project_id: projectId } });
}

// Every certificate the list's filters match, as CSV (a Response, for the page to save).
export function exportCertificates(projectId: string, query: QueryOf<"GET /projects/{project_id}/certificates">): Promise<Response> {
  return callRaw("GET /projects/{project_id}/certificates", { params: { project_id: projectId }, query: { ...query, format: "csv" } });
}

// Requests a certificate; the answer holds it and its issuance job.
export function createCertificate(projectId: string, certificate: CertificateCreate) {
  return call("POST /projects/{project_id}/certificates", { params: { project_id: projectId }, body: certificate });
}

export function getCertificate(projectId: string, certificateId: string) {
  return call("GET /projects/{project_id}/certificates/{cert_id}", { params: { project_id: projectId, cert_id: certificateId } });
}

// Changes what may change after creation: renewal timing, the issuer preference, profile and chain.
export function updateCertificate(projectId: string, certificateId: string, change: CertificatePatch) {
  return call("PATCH /projects/{project_id}/certificates/{cert_id}", { params: { project_id: projectId, cert_id: certificateId }, body: change });
}

export function deleteCertificate(projectId: string, certificateId: string) {
  return call("DELETE /projects/{project_id}/certificates/{cert_id}", { params: { project_id: projectId, cert_id: certificateId } });
}

export function renewCertificate(projectId: string, certificateId: string) {
  return call("POST /projects/{project_id}/certificates/{cert_id}/renew", { params: { project_id: projectId, cert_id: certificateId } });
}

// The certificate and its chain, without the key.
export function downloadCertificate(projectId: string, certificateId: string, format: "pem" | "zip"): Promise<Response> {
  return callRaw("GET /projects/{project_id}/certificates/{cert_id}/download", { params: { project_id: projectId, cert_id: certificateId }, query: { format } });
}

// The certificate with its key, encrypted under the request's password.
export function downloadCertificateWithKey(projectId: string, certificateId: string, request: DownloadRequest): Promise<Response> {
  return callRaw("POST /projects/{project_id}/certificates/{cert_id}/download", { params: { project_id: projectId, cert_id: certificateId }, body: request });
}

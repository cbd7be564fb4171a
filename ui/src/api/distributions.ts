// Distributions of certificates to the targets of distribution modules: a certificate's
// distributions and their actions, the project's list, and the modules with their health check.
import { call, type QueryOf } from "./client";

export function listDistributions(projectId: string, query: QueryOf<"GET /projects/{project_id}/distributions">) {
  return call("GET /projects/{project_id}/distributions", { params: { project_id: projectId }, query });
}

export function listCertificateDistributions(projectId: string, certificateId: string) {
  return call("GET /projects/{project_id}/certificates/{cert_id}/distributions", { params: { project_id: projectId, cert_id: certificateId } });
}

export function createDistribution(projectId: string, certificateId: string, moduleConfigId: string) {
  return call("POST /projects/{project_id}/certificates/{cert_id}/distributions", {
    params: { project_id: projectId, cert_id: certificateId },
    body: { module_config_id: moduleConfigId },
  });
}

export function deleteDistribution(projectId: string, certificateId: string, distributionId: string) {
  return call("DELETE /projects/{project_id}/certificates/{cert_id}/distributions/{dist_id}", { params: { project_id: projectId, cert_id: certificateId, dist_id: distributionId } });
}

// What executing would change on each target, without changing it.
export function dryRunDistribution(projectId: string, certificateId: string, distributionId: string) {
  return call("POST /projects/{project_id}/certificates/{cert_id}/distributions/{dist_id}/dry-run", {
    params: { project_id: projectId, cert_id: certificateId, dist_id: distributionId },
  });
}

// Queues the distribution's execution; the answer is the job.
export function executeDistribution(projectId: string, certificateId: string, distributionId: string) {
  return call("POST /projects/{project_id}/certificates/{cert_id}/distributions/{dist_id}/execute", {
    params: { project_id: projectId, cert_id: certificateId, dist_id: distributionId },
  });
}

// Queues putting the previous certificate back on every target; the answer is the job.
export function rollbackDistribution(projectId: string, certificateId: string, distributionId: string) {
  return call("POST /projects/{project_id}/certificates/{cert_id}/distributions/{dist_id}/rollback", {
    params: { project_id: projectId, cert_id: certificateId, dist_id: distributionId },
  });
}

export function listModuleConfigs(projectId: string, query: QueryOf<"GET /projects/{project_id}/modules">) {
  return call("GET /projects/{project_id}/modules", { params: { project_id: projectId }, query });
}

export function checkModuleHealth(projectId: string, moduleConfigId: string) {
  return call("POST /projects/{project_id}/modules/{id}/health", { params: { project_id: projectId, id: moduleConfigId } });
}

// The host key an SSH server offers, read without authenticating, for a person to confirm
// before it is saved as a target's host_key_sha256.
export function readSshHostKey(projectId: string, host: string, port?: number) {
  return call("POST /projects/{project_id}/ssh-host-keys", { params: { project_id: projectId }, body: port ? { host, port } : { host } });
}

// A project's jobs: the list, one job, its log, retry and cancel.
import { call, type QueryOf } from "./client";
import type { JobLogCursorPage } from "./schema.gen";

export function listJobs(projectId: string, query: QueryOf<"GET /projects/{project_id}/jobs">) {
  return call("GET /projects/{project_id}/jobs", { params: { project_id: projectId }, query });
}

export function getJob(projectId: string, jobId: string) {
  return call("GET /projects/{project_id}/jobs/{job_id}", { params: { project_id: projectId, job_id: jobId } });
}

// The log lines written after `cursor` (absent: from the first), in write order (cursor mode).
export async function readJobLog(projectId: string, jobId: string, query: { limit: number; cursor?: string | undefined }): Promise<JobLogCursorPage> {
  return (await call("GET /projects/{project_id}/jobs/{job_id}/logs", { params: { project_id: projectId, job_id: jobId }, query })) as JobLogCursorPage;
}

export function retryJob(projectId: string, jobId: string) {
  return call("POST /projects/{project_id}/jobs/{job_id}/retry", { params: { project_id: projectId, job_id: jobId } });
}

// Sets a dead job aside: lists asked with dismissed=false (the dashboard) leave it out.
export function dismissJob(projectId: string, jobId: string) {
  return call("POST /projects/{project_id}/jobs/{job_id}/dismiss", { params: { project_id: projectId, job_id: jobId } });
}

export function cancelJob(projectId: string, jobId: string) {
  return call("POST /projects/{project_id}/jobs/{job_id}/cancel", { params: { project_id: projectId, job_id: jobId } });
}

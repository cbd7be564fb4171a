// Projects and their members.
import { call, type QueryOf } from "./client";
import type { ProjectCreate, ProjectRole } from "./schema.gen";

export function listProjects(query: QueryOf<"GET /projects">) {
  return call("GET /projects", { query });
}

export function createProject(project: ProjectCreate) {
  return call("POST /projects", { body: project });
}

export function getProject(projectId: string) {
  return call("GET /projects/{project_id}", { params: { project_id: projectId } });
}

export function deleteProject(projectId: string) {
  return call("DELETE /projects/{project_id}", { params: { project_id: projectId } });
}

export function listMembers(projectId: string, query: QueryOf<"GET /projects/{project_id}/members">) {
  return call("GET /projects/{project_id}/members", { params: { project_id: projectId }, query });
}

// Adds the user to the project with `role`, or gives a member that role.
export function putMember(projectId: string, userId: string, role: ProjectRole) {
  return call("PUT /projects/{project_id}/members/{user_id}", { params: { project_id: projectId, user_id: userId }, body: { role } });
}

export function removeMember(projectId: string, userId: string) {
  return call("DELETE /projects/{project_id}/members/{user_id}", { params: { project_id: projectId, user_id: userId } });
}

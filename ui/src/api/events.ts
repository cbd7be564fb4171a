// A project's events (issued, renewed, failed, ...).
import { call, type QueryOf } from "./client";
import type { EventPage } from "./schema.gen";

// A page of the events, newest first (page mode: the query names a page, not a cursor).
export async function listEvents(projectId: string, query: QueryOf<"GET /projects/{project_id}/events"> & { limit?: never; cursor?: never }): Promise<EventPage> {
  return (await call("GET /projects/{project_id}/events", { params: { project_id: projectId }, query })) as EventPage;
}

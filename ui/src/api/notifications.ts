// Notification channels: a test message, and what a channel delivered.
import { call, type QueryOf } from "./client";

export function testChannel(projectId: string, channelId: string) {
  return call("POST /projects/{project_id}/notification-channels/{id}/test", { params: { project_id: projectId, id: channelId } });
}

export function listDeliveries(projectId: string, channelId: string, query: QueryOf<"GET /projects/{project_id}/notification-channels/{id}/deliveries">) {
  return call("GET /projects/{project_id}/notification-channels/{id}/deliveries", { params: { project_id: projectId, id: channelId }, query });
}

// The organisation's users.
import { call, type QueryOf } from "./client";
import type { UserChanges, UserCreate } from "./schema.gen";

export function listUsers(query: QueryOf<"GET /users">) {
  return call("GET /users", { query });
}

export function createUser(user: UserCreate) {
  return call("POST /users", { body: user });
}

export function updateUser(userId: string, changes: UserChanges) {
  return call("PATCH /users/{user_id}", { params: { user_id: userId }, body: changes });
}

export function deleteUser(userId: string) {
  return call("DELETE /users/{user_id}", { params: { user_id: userId } });
}

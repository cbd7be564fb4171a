// The org's users (org admins): create, change role, disable, reset password, delete.
import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { Paged, User } from "../api/types";
import { ActionButton, Badge, ErrorBanner, Field, Loading, Pager } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad } from "../lib/load";
import { setQuery } from "../lib/router";
import { useCan, useSession } from "../session";

const roles = ["viewer", "operator", "admin", "owner"];

// A new password for a local user (their refresh tokens are cut by the server).
function SetPassword({ user, onDone }: { user: User; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>(null);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Set password
      </button>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api.patch(`/users/${user.id}`, { password });
      setOpen(false);
      setPassword("");
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label={`New password for ${user.username}`}>
      <Field label={`New password for ${user.username}`}>
        {(id) => <input id={id} type="password" autocomplete="new-password" minLength={8} required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
      </Field>
      <button type="submit" class="primary">
        Save
      </button>
      <button type="button" class="plain" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorBanner error={error} />
    </form>
  );
}

export function Users({ query }: { query: URLSearchParams }) {
  const can = useCan();
  const { me } = useSession();
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(() => api.get<{ users: User[] } & Paged>("/users", { page, page_size: 25 }), [page]);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState("viewer");
  const [error, setError] = useState<unknown>(null);
  const manage = can("manage_users");
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api.post("/users", { username: username.trim(), password, org_role: role });
      setUsername("");
      setPassword("");
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <h1>Users</h1>
      {manage && (
        <form class="panel inline-form" onSubmit={create} aria-label="New user">
          <Field label="Username">{(id) => <input id={id} required autocomplete="off" value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />}</Field>
          <Field label="Password" hint="8 to 72 bytes">
            {(id) => <input id={id} type="password" required autocomplete="new-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
          </Field>
          <Field label="Org role">
            {(id) => (
              <select id={id} value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
                {roles.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button class="primary" type="submit">
            Create user
          </button>
          <ErrorBanner error={error} />
        </form>
      )}
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Users</caption>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Role</th>
                  <th scope="col">Source</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.users.map((u) => (
                  <tr key={u.id}>
                    <td>{u.username}</td>
                    <td>
                      {manage && u.id !== me.user.id ? (
                        <select
                          aria-label={`Role of ${u.username}`}
                          value={u.org_role}
                          onChange={async (e) => {
                            try {
                              await api.patch(`/users/${u.id}`, { org_role: (e.target as HTMLSelectElement).value });
                            } catch (err) {
                              setError(err);
                            }
                            list.reload();
                          }}
                        >
                          {roles.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      ) : (
                        u.org_role
                      )}
                    </td>
                    <td>{u.auth_source ?? "local"}</td>
                    <td>
                      {u.disabled ? <Badge value="disabled" /> : <Badge value="active" />} {u.totp_enabled && <span class="small">TOTP</span>}
                    </td>
                    <td>{formatTime(u.created_at)}</td>
                    <td>
                      {manage && u.id !== me.user.id && (
                        <span class="buttons">
                          {u.auth_source !== "ldap" && <SetPassword user={u} onDone={list.reload} />}
                          <ActionButton label={u.disabled ? "Enable" : "Disable"} run={() => api.patch(`/users/${u.id}`, { disabled: !u.disabled })} onDone={list.reload} />
                          <ActionButton kind="danger" label="Delete" confirm={`Delete ${u.username}?`} run={() => api.del(`/users/${u.id}`)} onDone={list.reload} />
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pageSize={25} total={list.data.total} onPage={(p) => setQuery({ page: p }, false)} />
        </>
      )}
    </section>
  );
}

// The org's users (org admins): create, change role, disable, reset password, delete.
import { useState } from "preact/hooks";
import { everyValue, type OrgRole, type User } from "../api/types";
import { createUser, deleteUser, listUsers, updateUser } from "../api/users";
import { PagedTable } from "../components/table";
import { ActionButton, Badge, ErrorBanner, Field, SelectField } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { setQuery } from "../lib/router";
import { useCan, useSession } from "../session";

const roles = everyValue<OrgRole>()(["viewer", "operator", "admin", "owner"]);

// A new password for a local user (their refresh tokens are cut by the server).
function SetPassword({ user, onDone }: { user: User; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const { error, submit } = useSubmit(async () => {
    await updateUser(user.id, { password });
    setOpen(false);
    setPassword("");
    onDone();
  });
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Set password
      </button>
    );
  }
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
  const list = useLoad(() => listUsers({ page, page_size: 25 }), [page]);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<OrgRole>("viewer");
  const manage = can("manage_users");
  // The server's rule beside the matrix: only an owner manages owners or makes one.
  const isOwner = me.org_role === "owner";
  const offered = isOwner ? roles : roles.filter((r) => r !== "owner");
  const manages = (u: User) => manage && u.id !== me.user.id && (isOwner || u.org_role !== "owner");
  const { error, setError, submit: create } = useSubmit(async () => {
    await createUser({ username: username.trim(), password, org_role: role });
    setUsername("");
    setPassword("");
    list.reload();
  });
  return (
    <section>
      <h1>Users</h1>
      {manage && (
        <form class="panel inline-form" onSubmit={create} aria-label="New user">
          <Field label="Username">{(id) => <input id={id} required autocomplete="off" value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />}</Field>
          <Field label="Password" hint="8 to 72 bytes">
            {(id) => <input id={id} type="password" required autocomplete="new-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
          </Field>
          <SelectField label="Org role" value={role} options={offered.map((r) => [r, r] as [string, string])} onChange={(v) => setRole(v as OrgRole)} />
          <button class="primary" type="submit">
            Create user
          </button>
          <ErrorBanner error={error} />
        </form>
      )}
      <PagedTable
        caption="Users"
        list={list}
        rows={(d) => d.users}
        rowKey={(u) => u.id}
        empty="No users."
        onPage={(p) => setQuery({ page: p }, false)}
        columns={[
          { header: "User", cell: (u) => u.username },
          {
            header: "Role",
            cell: (u) =>
              manages(u) ? (
                <select
                  aria-label={`Role of ${u.username}`}
                  value={u.org_role}
                  onChange={async (e) => {
                    try {
                      await updateUser(u.id, { org_role: (e.target as HTMLSelectElement).value as OrgRole });
                    } catch (err) {
                      setError(err);
                    }
                    list.reload();
                  }}
                >
                  {offered.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              ) : (
                u.org_role
              ),
          },
          { header: "Source", cell: (u) => u.auth_source ?? "local" },
          {
            header: "State",
            cell: (u) => (
              <>
                {u.disabled ? <Badge value="disabled" /> : <Badge value="active" />} {u.totp_enabled && <span class="small">TOTP</span>}
              </>
            ),
          },
          { header: "Created", cell: (u) => formatTime(u.created_at) },
          {
            header: "",
            cell: (u) =>
              manages(u) && (
                <span class="buttons">
                  {(u.auth_source ?? "local") === "local" && <SetPassword user={u} onDone={list.reload} />}
                  <ActionButton label={u.disabled ? "Enable" : "Disable"} run={() => updateUser(u.id, { disabled: !u.disabled })} onDone={list.reload} />
                  <ActionButton kind="danger" label="Delete" confirm={`Delete ${u.username}?`} run={() => deleteUser(u.id)} onDone={list.reload} />
                </span>
              ),
          },
        ]}
      />
    </section>
  );
}

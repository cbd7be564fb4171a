// Projects (create for org admins) and one project's members (manage for project admins).
import { useState } from "preact/hooks";
import { createProject, deleteProject, getProject, listMembers, listProjects, putMember, removeMember } from "../api/projects";
import type { ProjectRole } from "../api/types";
import { listUsers } from "../api/users";
import { PagedTable } from "../components/table";
import { ActionButton, ErrorBanner, Field, KeyValues, Link, Loading } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { projectsChanged } from "../lib/project";
import { navigate, setQuery } from "../lib/router";
import { useCan, useSession } from "../session";
import { allPages, type PageQuery } from "../api/all-pages";

export function Projects({ query }: { query: URLSearchParams }) {
  const can = useCan();
  const { reload } = useSession();
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(() => listProjects({ page, page_size: 25 }), [page]);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const { error, submit: create } = useSubmit(async () => {
    const created = await createProject({ name: name.trim(), description });
    await reload();
    projectsChanged();
    navigate(`/p/${created.project.id}`);
  });
  return (
    <section>
      <h1>Projects</h1>
      {can("create_project") && (
        <form class="panel inline-form" onSubmit={create} aria-label="New project">
          <Field label="Name" hint="Any 1 to 100 characters, without spaces at either end or control characters">
            {(id) => <input id={id} required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
          </Field>
          <Field label="Description">
            {(id) => <input id={id} value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />}
          </Field>
          <button class="primary" type="submit">
            Create project
          </button>
          <ErrorBanner error={error} />
        </form>
      )}
      <PagedTable
        caption="Projects"
        list={list}
        rows={(d) => d.projects}
        rowKey={(p) => p.id}
        empty="No projects you can see."
        onPage={(p) => setQuery({ page: p }, false)}
        columns={[
          { header: "Name", cell: (p) => <Link href={`/p/${p.id}`}>{p.name}</Link> },
          { header: "Description", cell: (p) => p.description },
          { header: "Created", cell: (p) => formatTime(p.created_at) },
          { header: "", cell: (p) => <Link href={`/projects/${p.id}`}>Settings and members</Link> },
        ]}
      />
    </section>
  );
}

function AddMember({ project, onAdded }: { project: string; onAdded: () => void }) {
  const users = useLoad(() => allPages((q: PageQuery) => listUsers(q), "users"), []);
  const [user, setUser] = useState("");
  const [role, setRole] = useState<ProjectRole>("viewer");
  return (
    <div class="inline-form">
      <Field label="User">
        {(id) =>
          users.data ? (
            <select id={id} value={user} onChange={(e) => setUser((e.target as HTMLSelectElement).value)}>
              <option value="">Choose…</option>
              {users.data.users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
            </select>
          ) : (
            <input id={id} placeholder="user id" value={user} onInput={(e) => setUser((e.target as HTMLInputElement).value)} />
          )
        }
      </Field>
      <Field label="Role">
        {(id) => (
          <select id={id} value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as ProjectRole)}>
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
          </select>
        )}
      </Field>
      <ActionButton kind="primary" label="Add or change member" run={() => putMember(project, user, role)} onDone={onAdded} />
    </div>
  );
}

export function ProjectDetail({ id }: { id: string }) {
  const can = useCan();
  const { reload } = useSession();
  const project = useLoad(() => getProject(id), [id]);
  const members = useLoad(() => allPages((q: PageQuery) => listMembers(id, q), "members"), [id]);
  const manage = can("manage_members", id);
  if (project.error) return <ErrorBanner error={project.error} />;
  const p = project.data?.project;
  if (!p) return <Loading />;
  return (
    <section>
      <p>
        <Link href="/projects">← Projects</Link>
      </p>
      <h1>{p.name}</h1>
      <KeyValues
        rows={[
          ["Description", p.description || "—"],
          ["Created", formatTime(p.created_at)],
          ["Id", <code>{p.id}</code>],
        ]}
      />
      {can("delete_project") && (
        <ActionButton
          kind="danger"
          label="Delete project"
          confirm={`Delete the project ${p.name}? It must hold no certificates or configuration.`}
          run={() => deleteProject(id)}
          onDone={async () => {
            await reload();
            projectsChanged();
            navigate("/projects");
          }}
        />
      )}
      <h2>Members</h2>
      <ErrorBanner error={members.error} />
      <ul class="plain-list">
        {members.data?.members.map((m) => (
          <li key={m.user_id}>
            <code>{m.user_id}</code> — {m.role}{" "}
            {manage && <ActionButton kind="danger" label="Remove" confirm="Remove this member?" run={() => removeMember(id, m.user_id)} onDone={members.reload} />}
          </li>
        ))}
        {members.data?.members.length === 0 && <li class="muted">No members; org admins and owners see every project.</li>}
      </ul>
      {manage && <AddMember project={id} onAdded={members.reload} />}
    </section>
  );
}

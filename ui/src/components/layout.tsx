// The frame of every page: skip link, header with the project picker and the user's menu, the
// navigation (what the user's role may see), and the page itself.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { listProjects } from "../api/projects";
import type { Project } from "../api/types";
import { useLoad } from "../lib/load";
import { lastProject, onProjectsChanged, rememberProject } from "../lib/project";
import { navigate, useLocation } from "../lib/router";
import { useCan, useSession } from "../session";
import { ActionButton, ErrorBanner, Link } from "./ui";
import { allPages, type PageQuery } from "../api/all-pages";

export function useProjects() {
  return useLoad(() => allPages((q: PageQuery) => listProjects(q), "projects"), []);
}

export function currentProjectId(path: string, projects: Project[] | undefined): string | null {
  const inPath = /^\/p\/([A-Za-z0-9_-]{1,64})(\/|$)/.exec(path)?.[1];
  if (inPath) return inPath;
  const last = lastProject();
  if (last && projects?.some((p) => p.id === last)) return last;
  return projects?.[0]?.id ?? null;
}

export function Layout({ children }: { children: ComponentChildren }) {
  const { me, logout } = useSession();
  const can = useCan();
  const { path } = useLocation();
  const projects = useProjects();
  const projectId = currentProjectId(path, projects.data?.projects);
  if (projectId) rememberProject(projectId);
  // After a move to another page, keyboard and screen-reader users start at its content.
  const firstPath = useRef(path);
  useEffect(() => {
    if (path === firstPath.current) return;
    firstPath.current = "";
    document.getElementById("main")?.focus({ preventScroll: true });
  }, [path]);

  useEffect(() => onProjectsChanged(projects.reload), [projects.reload]);

  // A project created (or joined) since the list was read: read it again.
  const known = !projectId || !projects.data || projects.data.projects.some((p) => p.id === projectId);
  useEffect(() => {
    if (!known && !projects.loading) projects.reload();
  }, [known, projectId]);

  // While the project list loads and no project is known yet, the project's links are laid out
  // unseen, so the page does not move when they appear (they usually do); so is the picker.
  const pending = !projectId && !projects.data && !projects.error;
  const nav: [string, string][] = [];
  if (projectId || pending) {
    const p = projectId ?? "-";
    nav.push(["Dashboard", `/p/${p}`]);
    nav.push(["Certificates", `/p/${p}/certificates`]);
    nav.push(["Jobs", `/p/${p}/jobs`]);
    nav.push(["Distributions", `/p/${p}/distributions`]);
    nav.push(["Configuration", `/p/${p}/config/acme-accounts`]);
  }
  nav.push(["Projects", "/projects"]);
  if (can("list_users")) nav.push(["Users", "/users"]);
  if (can("read_audit_log")) nav.push(["Audit log", "/audit"]);
  nav.push(["CA providers", "/ca-providers"]);
  nav.push(["Licence", "/license"]);
  if (can("manage_settings")) nav.push(["Directory", "/settings/ldap"], ["Single sign-on", "/settings/oidc"]);

  const isCurrent = (href: string) =>
    href === `/p/${projectId}` ? path === href : path === href || path.startsWith(href.replace(/\/acme-accounts$/, "") + "/");

  const switchProject = (id: string) => {
    rememberProject(id);
    const rest = path.match(/^\/p\/[^/]+(\/[a-z-]+)?/)?.[1] ?? "";
    navigate(`/p/${id}${rest === "/config" ? "/config/acme-accounts" : rest}`);
  };

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          CertSteward
        </Link>
        {!projects.data && !projects.error && (
          <div class="project-picker placeholder" aria-hidden="true">
            <span>Project</span>
            <select disabled tabIndex={-1} />
          </div>
        )}
        {projects.data && projects.data.projects.length > 0 && (
          <div class="project-picker">
            <label for="project-picker">Project</label>
            <select id="project-picker" value={projectId ?? ""} onChange={(e) => switchProject((e.target as HTMLSelectElement).value)}>
              {projects.data.projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
              {projectId && !projects.data.projects.some((p) => p.id === projectId) && (
                // Beyond the first 100 (the picker lists those; the Projects page pages through all).
                <option value={projectId}>This project</option>
              )}
            </select>
          </div>
        )}
        <div class="user-menu">
          <Link href="/profile">
            {me.user.username} <span class="muted">({me.org_role})</span>
          </Link>
          <ActionButton label="Sign out" run={logout} />
        </div>
      </header>
      <nav class="side" aria-label="Main">
        <ul>
          {nav.map(([label, href]) => {
            const unseen = pending && href.startsWith("/p/");
            return (
            <li key={label} class={unseen ? "placeholder" : undefined} aria-hidden={unseen ? "true" : undefined}>
              <a
                tabIndex={unseen ? -1 : undefined}
                href={href}
                aria-current={isCurrent(href) ? "page" : undefined}
                onClick={(e) => {
                  if (e.button !== 0 || e.metaKey || e.ctrlKey) return;
                  e.preventDefault();
                  navigate(href);
                }}
              >
                {label}
              </a>
            </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <ErrorBanner error={projects.error} />
        {children}
      </main>
    </div>
  );
}

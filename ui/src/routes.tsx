// Which page answers which address. Unknown addresses get a page that says so.
import { ErrorBanner, Link, Loading } from "./components/ui";
import { currentProjectId, useProjects } from "./components/layout";
import { match, navigate } from "./lib/router";
import { Audit } from "./pages/audit";
import { CaProviders } from "./pages/ca-providers";
import { CertificateDetail } from "./pages/certificate-detail";
import { Certificates } from "./pages/certificates";
import { Configuration } from "./pages/configuration";
import { Dashboard } from "./pages/dashboard";
import { Distributions } from "./pages/distributions";
import { JobDetail } from "./pages/job-detail";
import { Jobs } from "./pages/jobs";
import { Ldap } from "./pages/ldap";
import { Oidc } from "./pages/oidc";
import { License } from "./pages/license";
import { ProfilePage } from "./pages/profile";
import { ProjectDetail, Projects } from "./pages/projects";
import { Users } from "./pages/users";
import { useEffect } from "preact/hooks";

function Home() {
  const projects = useProjects();
  const id = currentProjectId("/", projects.data?.projects);
  useEffect(() => {
    if (id) navigate(`/p/${id}`, true);
  }, [id]);
  if (projects.error) return <ErrorBanner error={projects.error} />;
  if (projects.data && !id) {
    return (
      <section>
        <h1>Welcome</h1>
        <p>
          There is no project yet, or none you are a member of. <Link href="/projects">Projects</Link> lists them; an org
          admin can create one.
        </p>
      </section>
    );
  }
  return <Loading />;
}

export function Routes({ path, query }: { path: string; query: URLSearchParams }) {
  const table: [string, (p: Record<string, string>) => preact.JSX.Element][] = [
    ["/", () => <Home />],
    ["/p/:project", (p) => <Dashboard project={p.project!} />],
    ["/p/:project/certificates", (p) => <Certificates project={p.project!} query={query} />],
    ["/p/:project/certificates/:id", (p) => <CertificateDetail project={p.project!} id={p.id!} />],
    ["/p/:project/jobs", (p) => <Jobs project={p.project!} query={query} />],
    ["/p/:project/jobs/:id", (p) => <JobDetail project={p.project!} id={p.id!} />],
    ["/p/:project/distributions", (p) => <Distributions project={p.project!} query={query} />],
    ["/p/:project/config/:kind", (p) => <Configuration project={p.project!} kind={p.kind!} />],
    ["/projects", () => <Projects query={query} />],
    ["/projects/:id", (p) => <ProjectDetail id={p.id!} />],
    ["/users", () => <Users query={query} />],
    ["/audit", () => <Audit query={query} />],
    ["/ca-providers", () => <CaProviders />],
    ["/license", () => <License />],
    ["/settings/ldap", () => <Ldap />],
    ["/settings/oidc", () => <Oidc />],
    ["/profile", () => <ProfilePage />],
  ];
  for (const [pattern, page] of table) {
    const params = match(pattern, path);
    if (params) return page(params);
  }
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        Nothing lives at <code>{path}</code>. <Link href="/">Go to the dashboard</Link>.
      </p>
    </section>
  );
}

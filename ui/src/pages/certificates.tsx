// The certificates of a project: filters, sort, search by name and paging, all done by the
// server (a project may hold 100,000 certificates); the create form for operators.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Certificate, Job, Paged, Resource } from "../api/types";
import { certificateStatuses, keyTypes } from "../api/types";
import { Badge, ErrorBanner, Field, Link, Loading, Pager } from "../components/ui";
import { daysLeft, formatDate, humanize } from "../lib/format";
import { useLoad } from "../lib/load";
import { navigate, setQuery } from "../lib/router";
import { useCan } from "../session";

const pageSize = 25;

function CreateCertificate({ project, onCancel }: { project: string; onCancel: () => void }) {
  const accounts = useLoad(() => api.get<{ acme_accounts: Resource[] } & Paged>(`/projects/${project}/acme-accounts`, { page_size: 100 }), [project]);
  const [commonName, setCommonName] = useState("");
  const [sans, setSans] = useState("");
  const [keyType, setKeyType] = useState<string>("ecdsa_p256");
  const [threshold, setThreshold] = useState("30");
  const [autoRenew, setAutoRenew] = useState(true);
  const [account, setAccount] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = {
        common_name: commonName.trim(),
        sans: sans.split(/[\s,]+/).filter(Boolean),
        key_type: keyType,
        renewal_threshold_days: Number(threshold),
        auto_renew: autoRenew,
      };
      if (account) body.acme_account_id = account;
      const created = await api.post<{ certificate: Certificate; job: Job }>(`/projects/${project}/certificates`, body);
      navigate(`/p/${project}/certificates/${created.certificate.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="create-cert">
      <h2 id="create-cert">New certificate</h2>
      <ErrorBanner error={error} />
      <div class="grid">
        <Field label="Common name" hint="A DNS name of one of the project's zones, e.g. www.example.com or *.example.com">
          {(id) => <input id={id} required value={commonName} onInput={(e) => setCommonName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Other names (SANs)" hint="Separated by commas or spaces; the common name is added">
          {(id) => <input id={id} value={sans} onInput={(e) => setSans((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Key type">
          {(id) => (
            <select id={id} value={keyType} onChange={(e) => setKeyType((e.target as HTMLSelectElement).value)}>
              {keyTypes.map((k) => (
                <option key={k} value={k}>
                  {humanize(k)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Renew this many days before expiry">
          {(id) => <input id={id} type="number" min={1} max={365} value={threshold} onInput={(e) => setThreshold((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="ACME account" hint="Empty: the project's only or first account">
          {(id) => (
            <select id={id} value={account} onChange={(e) => setAccount((e.target as HTMLSelectElement).value)}>
              <option value="">Default</option>
              {accounts.data?.acme_accounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div class="field checkbox">
          <input id="auto-renew" type="checkbox" checked={autoRenew} onChange={(e) => setAutoRenew((e.target as HTMLInputElement).checked)} />
          <label for="auto-renew">Renew automatically</label>
        </div>
      </div>
      <div class="buttons">
        <button class="primary" type="submit" disabled={busy}>
          {busy ? "Requesting…" : "Request certificate"}
        </button>
        <button type="button" class="plain" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function Certificates({ project, query }: { project: string; query: URLSearchParams }) {
  const can = useCan();
  const [creating, setCreating] = useState(false);
  const status = query.get("status") ?? "";
  const expiring = query.get("expiring") ?? "";
  const issuer = query.get("issuer") ?? "";
  const search = query.get("search") ?? "";
  const sort = query.get("sort") ?? "created_at";
  const order = query.get("order") ?? "desc";
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const [searchText, setSearchText] = useState(search);

  // Searching as one types, once the typing pauses.
  useEffect(() => {
    if (searchText === search) return undefined;
    const t = window.setTimeout(() => setQuery({ search: searchText, page: undefined }), 300);
    return () => window.clearTimeout(t);
  }, [searchText, search]);

  const list = useLoad(
    () =>
      api.get<{ certificates: Certificate[] } & Paged>(`/projects/${project}/certificates`, {
        status,
        expiring_within_days: expiring,
        issuer_type: issuer,
        search,
        sort,
        order,
        page,
        page_size: pageSize,
      }),
    [project, status, expiring, issuer, search, sort, order, page],
  );

  const filter = (name: string) => (e: Event) => setQuery({ [name]: (e.target as HTMLSelectElement).value, page: undefined });

  return (
    <section>
      <div class="heading">
        <h1>Certificates</h1>
        {can("write_certificates", project) && !creating && (
          <button class="primary" type="button" onClick={() => setCreating(true)}>
            New certificate
          </button>
        )}
      </div>
      {creating && <CreateCertificate project={project} onCancel={() => setCreating(false)} />}
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search by name">
          {(id) => <input id={id} type="search" value={searchText} onInput={(e) => setSearchText((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Status">
          {(id) => (
            <select id={id} value={status} onChange={filter("status")}>
              <option value="">Any</option>
              {certificateStatuses.map((s) => (
                <option key={s} value={s}>
                  {humanize(s)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Expires">
          {(id) => (
            <select id={id} value={expiring} onChange={(e) => setQuery({ expiring: (e.target as HTMLSelectElement).value, page: undefined })}>
              <option value="">Any time</option>
              <option value="0">Already expired</option>
              <option value="7">Within 7 days</option>
              <option value="14">Within 14 days</option>
              <option value="30">Within 30 days</option>
              <option value="90">Within 90 days</option>
            </select>
          )}
        </Field>
        <Field label="Issuer">
          {(id) => (
            <select id={id} value={issuer} onChange={filter("issuer")}>
              <option value="">Any</option>
              <option value="acme">ACME</option>
            </select>
          )}
        </Field>
        <Field label="Sort by">
          {(id) => (
            <select id={id} value={sort} onChange={filter("sort")}>
              <option value="created_at">Created</option>
              <option value="expires_at">Expiry</option>
              <option value="next_renewal_at">Next renewal</option>
              <option value="common_name">Name</option>
              <option value="status">Status</option>
            </select>
          )}
        </Field>
        <Field label="Order">
          {(id) => (
            <select id={id} value={order} onChange={filter("order")}>
              <option value="desc">Descending</option>
              <option value="asc">Ascending</option>
            </select>
          )}
        </Field>
      </form>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Certificates, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Days left</th>
                  <th scope="col">Key</th>
                  <th scope="col">Auto-renew</th>
                </tr>
              </thead>
              <tbody>
                {list.data.certificates.map((c) => {
                  const left = daysLeft(c.expires_at);
                  return (
                    <tr key={c.id}>
                      <td>
                        <Link href={`/p/${project}/certificates/${c.id}`}>{c.common_name}</Link>
                        {c.sans.length > 1 && <span class="muted small"> +{c.sans.length - 1}</span>}
                      </td>
                      <td>
                        <Badge value={c.status} />
                        {c.failed_renewal && c.status !== "renewal_failed" && <Badge value="renewal_failed" />}
                      </td>
                      <td>{formatDate(c.expires_at)}</td>
                      <td class={left !== null && left < 7 ? "bad-text" : ""}>{left ?? "—"}</td>
                      <td>{humanize(c.key_type)}</td>
                      <td>{c.auto_renew ? "yes" : "no"}</td>
                    </tr>
                  );
                })}
                {list.data.certificates.length === 0 && (
                  <tr>
                    <td colSpan={6} class="muted">
                      No certificate matches.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={page} pageSize={pageSize} total={list.data.total} onPage={(p) => setQuery({ page: p }, false)} />
        </>
      )}
    </section>
  );
}

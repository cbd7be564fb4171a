// The certificates of a project: filters, sort, search by any name and paging, all done by the
// server (a project may hold 100,000 certificates); the CSV export of what the filters match;
// bulk renew, delete and distribute of the selected ones; the create form for operators.
import { useEffect, useRef, useState } from "preact/hooks";
import { createCertificate, deleteCertificate, exportCertificates, listCertificates, renewCertificate } from "../api/certificates";
import { createDistribution, listModuleConfigs } from "../api/distributions";
import type { CertificateCreate, KeyType } from "../api/types";
import { certificateStatuses, keyTypes } from "../api/types";
import { type Outcome, Outcomes, runEach } from "../components/bulk";
import { ModuleSelect } from "../components/distribution";
import { IssuerFields, PolicyViolations, profileFor, RenewalTiming, renewalOf, useIssuers } from "../components/issuers";
import { PagedTable } from "../components/table";
import { ActionButton, Badge, ErrorBanner, Field, FormButtons, Link, SelectField } from "../components/ui";
import { download } from "../lib/download";
import { daysLeft, formatDate, humanize } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { navigate, setQuery } from "../lib/router";
import { useCan } from "../session";
import { allPages, type PageQuery } from "../api/all-pages";

const pageSize = 25;

function CreateCertificate({ project, onCancel }: { project: string; onCancel: () => void }) {
  const issuers = useIssuers(project);
  const [commonName, setCommonName] = useState("");
  const [sans, setSans] = useState("");
  const [keyType, setKeyType] = useState<KeyType>("ecdsa_p256");
  const [renewal, setRenewal] = useState({ by: "default", days: "30", fraction: "33" });
  const [autoRenew, setAutoRenew] = useState(true);
  const [accounts, setAccounts] = useState<string[]>([]);
  const [profile, setProfile] = useState("");
  const [chain, setChain] = useState("");
  const [challenge, setChallenge] = useState<"dns-01" | "http-01">("dns-01");
  const [webroot, setWebroot] = useState("");
  const modules = useLoad(() => allPages((q: PageQuery) => listModuleConfigs(project, q), "modules"), [project]);
  const webroots = (modules.data?.modules ?? []).filter((m) => m.module === "file" || m.module === "ssh");
  const { busy, error, submit } = useSubmit(async () => {
    const body: CertificateCreate = {
        common_name: commonName.trim(),
        sans: sans.split(/[\s,]+/).filter(Boolean),
        key_type: keyType,
        ...renewalOf(renewal),
        auto_renew: autoRenew,
      };
      if (accounts.length) body.acme_account_ids = accounts;
      if (profileFor(accounts, profile)) body.profile = profile;
      if (chain.trim()) body.preferred_chain = chain.trim();
      if (challenge === "http-01") {
        body.challenge = challenge;
        if (webroot) body.http01_module_config_id = webroot;
      }
      const created = await createCertificate(project, body);
    navigate(`/p/${project}/certificates/${created.certificate.id}`);
  });

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="create-cert">
      <h2 id="create-cert">New certificate</h2>
      <ErrorBanner error={error} />
      <PolicyViolations error={error} />
      <ErrorBanner error={issuers.error} />
      <div class="grid">
        <Field label="Common name" hint="A DNS name of one of the project's zones, e.g. www.example.com or *.example.com">
          {(id) => <input id={id} required value={commonName} onInput={(e) => setCommonName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Other names (SANs)" hint="Separated by commas or spaces; the common name is added">
          {(id) => <input id={id} value={sans} onInput={(e) => setSans((e.target as HTMLInputElement).value)} />}
        </Field>
        <SelectField label="Key type" value={keyType} options={[...keyTypes]} onChange={(v) => setKeyType(v as KeyType)} />
        <RenewalTiming value={renewal} onChange={setRenewal} />
        <IssuerFields issuers={issuers} accounts={accounts} setAccounts={setAccounts} profile={profile} setProfile={setProfile} chain={chain} setChain={setChain} />
        <SelectField
          label="Challenge"
          value={challenge}
          options={[
            ["dns-01", "DNS-01 (the project's zones)"],
            ["http-01", "HTTP-01 (no wildcards)"],
          ]}
          onChange={(v) => setChallenge(v as "dns-01" | "http-01")}
        />
        {challenge === "http-01" && (
          <Field label="HTTP-01 answered by" hint="This server needs acme.http01_listen; a webroot is a file or ssh module configuration with a webroot setting">
            {(id) => (
              <select id={id} value={webroot} onChange={(e) => setWebroot((e.target as HTMLSelectElement).value)}>
                <option value="">This server</option>
                {webroots.map((m) => (
                  <option key={m.id} value={m.id}>
                    Webroot of {m.name} ({String(m.module)})
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <div class="field checkbox">
          <input id="auto-renew" type="checkbox" checked={autoRenew} onChange={(e) => setAutoRenew((e.target as HTMLInputElement).checked)} />
          <label for="auto-renew">Renew automatically</label>
        </div>
      </div>
      <FormButtons busy={busy} label="Request certificate" busyLabel="Requesting…" onCancel={onCancel} />
    </form>
  );
}

interface Selected {
  id: string;
  name: string;
}

interface BulkResult {
  action: string;
  outcomes: Outcome[];
}

// What to do with the selected certificates; each is done as if one by one, and reported by name
// (the report is the page's: it stays when the selection empties).
function BulkActions({ project, selected, onClear, onStart, onDone }: { project: string; selected: Selected[]; onClear: () => void; onStart: () => void; onDone: (result: BulkResult, deleted: string[]) => void }) {
  const can = useCan();
  const modules = useLoad(() => allPages((q: PageQuery) => listModuleConfigs(project, q), "modules"), [project]);
  const [module, setModule] = useState("");
  const [busy, setBusy] = useState(false);
  const run = async (action: string, work: (s: Selected) => Promise<unknown>, done: string) => {
    setBusy(true);
    onStart();
    const outcomes = await runEach(selected, (s) => s.name, work, done);
    setBusy(false);
    onDone({ action, outcomes }, action === "Delete" ? selected.filter((_, i) => outcomes[i].ok).map((s) => s.id) : []);
  };
  const n = selected.length;
  const plural = n === 1 ? "certificate" : "certificates";
  return (
    <div class="panel bulk" role="region" aria-label="Selected certificates">
      <div class="buttons">
        <strong>
          {n} {plural} selected
        </strong>
        {can("write_certificates", project) && (
          <button type="button" disabled={busy || n === 0} onClick={() => void run("Renewal", (s) => renewCertificate(project, s.id), "renewal queued")}>
            Renew selected
          </button>
        )}
        {can("write_certificates", project) && modules.data && modules.data.modules.length > 0 && (
          <span class="inline-form">
            <ModuleSelect label="Module" modules={modules.data.modules} value={module} onChange={setModule} />
            <button type="button" disabled={busy || n === 0 || !module} onClick={() => void run("Distribution", (s) => createDistribution(project, s.id, module), "distribution added")}>
              Distribute selected
            </button>
          </span>
        )}
        {can("delete_certificates", project) && (
          <button
            type="button"
            class="danger"
            disabled={busy || n === 0}
            onClick={() => {
              if (window.confirm(`Delete ${n} ${plural}? Their keys and issued material are removed.`)) void run("Delete", (s) => deleteCertificate(project, s.id), "deleted");
            }}
          >
            Delete selected
          </button>
        )}
        <button type="button" class="plain" disabled={busy} onClick={onClear}>
          Clear selection
        </button>
        {busy && <span class="muted" role="status">Working…</span>}
      </div>
    </div>
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
  // The address changed the search (Back, a link, another project): the box follows it.
  const addressSearch = useRef(search);
  if (addressSearch.current !== search) {
    addressSearch.current = search;
    if (searchText !== search) setSearchText(search);
  }

  // Searching as one types, once the typing pauses.
  useEffect(() => {
    if (searchText === search) return undefined;
    const t = window.setTimeout(() => {
      addressSearch.current = searchText;
      setQuery({ search: searchText, page: undefined });
    }, 300);
    return () => window.clearTimeout(t);
  }, [searchText, search]);

  const list = useLoad(
    () =>
      listCertificates(project, {
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

  const filter = (name: string) => (value: string) => setQuery({ [name]: value, page: undefined });
  // Days left: fewest first unless the order was chosen.
  const sortBy = (value: string) => setQuery({ sort: value, order: value === "expires_at" && !query.get("order") ? "asc" : query.get("order") ?? undefined, page: undefined });
  const filters = { status, expiring_within_days: expiring, issuer_type: issuer, search, sort, order };

  // Selected certificates, kept across pages and filters of this project until cleared.
  const [selected, setSelected] = useState<Map<string, string>>(new Map());
  const [bulkResult, setBulkResult] = useState<BulkResult | null>(null);
  useEffect(() => {
    setSelected(new Map());
    setBulkResult(null);
  }, [project]);
  const rowsShown = list.data?.certificates ?? [];
  const mark = (rows: typeof rowsShown, on: boolean) =>
    setSelected((was) => {
      const next = new Map(was);
      for (const c of rows) {
        if (on) next.set(c.id, c.common_name);
        else next.delete(c.id);
      }
      return next;
    });
  const allShownSelected = rowsShown.length > 0 && rowsShown.every((c) => selected.has(c.id));
  const bulk = can("write_certificates", project) || can("delete_certificates", project);

  return (
    <section>
      <div class="heading">
        <h1>Certificates</h1>
        <div class="buttons">
          <ActionButton label="Export CSV" run={() => download(exportCertificates(project, filters), "certificates.csv")} />
          {can("write_certificates", project) && !creating && (
            <button class="primary" type="button" onClick={() => setCreating(true)}>
              New certificate
            </button>
          )}
        </div>
      </div>
      {creating && <CreateCertificate project={project} onCancel={() => setCreating(false)} />}
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search by any name" hint="The common name or any other name (SAN)">
          {(id) => <input id={id} type="search" value={searchText} onInput={(e) => setSearchText((e.target as HTMLInputElement).value)} />}
        </Field>
        <SelectField label="Status" value={status} options={[["", "Any"], ...certificateStatuses]} onChange={filter("status")} />
        <SelectField
          label="Expires"
          value={expiring}
          options={[
            ["", "Any time"],
            ["0", "Already expired"],
            ["7", "Within 7 days"],
            ["14", "Within 14 days"],
            ["30", "Within 30 days"],
            ["90", "Within 90 days"],
          ]}
          onChange={filter("expiring")}
        />
        <SelectField label="Issuer" value={issuer} options={[["", "Any"], ["acme", "ACME"]]} onChange={filter("issuer")} />
        <SelectField
          label="Sort by"
          value={sort}
          options={[
            ["created_at", "Created"],
            ["expires_at", "Days left"],
            ["next_renewal_at", "Next renewal"],
            ["common_name", "Name"],
            ["status", "Status"],
          ]}
          onChange={sortBy}
        />
        <SelectField label="Order" value={order} options={[["desc", "Descending"], ["asc", "Ascending"]]} onChange={filter("order")} />
      </form>
      {bulk && selected.size > 0 && (
        <BulkActions
          project={project}
          selected={[...selected].map(([id, name]) => ({ id, name }))}
          onClear={() => setSelected(new Map())}
          onStart={() => setBulkResult(null)}
          onDone={(result, deleted) => {
            setBulkResult(result);
            if (deleted.length) setSelected((was) => new Map([...was].filter(([id]) => !deleted.includes(id))));
            list.reload();
          }}
        />
      )}
      {bulkResult && <Outcomes action={bulkResult.action} outcomes={bulkResult.outcomes} onDismiss={() => setBulkResult(null)} />}
      {bulk && rowsShown.length > 0 && (
        <p class="table-tools">
          <button type="button" class="plain small" onClick={() => mark(rowsShown, !allShownSelected)}>
            {allShownSelected ? "Unselect this page" : "Select this page"}
          </button>
        </p>
      )}
      <PagedTable
        caption={`Certificates, page ${page}`}
        list={list}
        rows={(d) => d.certificates}
        rowKey={(c) => c.id}
        empty="No certificate matches."
        onPage={(p) => setQuery({ page: p }, false)}
        columns={[
          ...(bulk
            ? [
                {
                  header: "Select",
                  class: "select",
                  cell: (c: (typeof rowsShown)[number]) => (
                    <input type="checkbox" aria-label={`Select ${c.common_name}`} checked={selected.has(c.id)} onChange={(e) => mark([c], (e.target as HTMLInputElement).checked)} />
                  ),
                },
              ]
            : []),
          {
            header: "Name",
            cell: (c) => (
              <>
                <Link href={`/p/${project}/certificates/${c.id}`}>{c.common_name}</Link>
                {c.sans.length > 1 && <span class="muted small"> +{c.sans.length - 1}</span>}
              </>
            ),
          },
          {
            header: "Status",
            cell: (c) => (
              <>
                <Badge value={c.status} />
                {c.failed_renewal && c.status !== "renewal_failed" && <Badge value="renewal_failed" />}
              </>
            ),
          },
          { header: "Expires", cell: (c) => formatDate(c.expires_at) },
          {
            header: "Days left",
            cell: (c) => daysLeft(c.expires_at) ?? "—",
            class: (c) => {
              const left = daysLeft(c.expires_at);
              return left !== null && left < 7 ? "bad-text" : "";
            },
          },
          { header: "Key", cell: (c) => humanize(c.key_type) },
          { header: "Auto-renew", cell: (c) => (c.auto_renew ? "yes" : "no") },
        ]}
      />
    </section>
  );
}

// Small building blocks every page uses: errors in words, paging, labelled fields, badges.
import type { ComponentChildren, JSX } from "preact";
import { useState } from "preact/hooks";
import { describe } from "../api/client";
import { humanize } from "../lib/format";
import { navigate } from "../lib/router";

export function ErrorBanner({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div class="banner error" role="alert">
      {describe(error)}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="banner ok" role="status">
      {children}
    </div>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function Link({ href, children, class: cls }: { href: string; children: ComponentChildren; class?: string }) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} class={cls}>
      {children}
    </a>
  );
}

const tone: Record<string, string> = {
  active: "good",
  completed: "good",
  succeeded: "good",
  ok: "good",
  sent: "good",
  issuing: "info",
  pending: "info",
  renewal_pending: "info",
  renewal_in_progress: "info",
  partial: "warn",
  failed: "bad",
  renewal_failed: "bad",
  dead: "bad",
  cancelled: "muted",
  // A dry run's plan: what an execute would do to each file.
  create: "info",
  replace: "warn",
  run: "info",
  send: "info",
  unchanged: "muted",
};

export function Badge({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  return <span class={`badge ${tone[value] ?? "muted"}`}>{humanize(value)}</span>;
}

export function Pager({ page, pageSize, total, onPage }: { page: number; pageSize: number; total: number; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages} · {total} in all
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

let fieldIds = 0;

export function Field(props: {
  label: string;
  hint?: string;
  children: (id: string) => JSX.Element;
}) {
  const [id] = useState(() => `f${++fieldIds}`);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children(id)}
      {props.hint && <small class="muted">{props.hint}</small>}
    </div>
  );
}

// A button for an action that calls the API: busy while it runs, the error in words after.
export function ActionButton(props: {
  label: string;
  run: () => Promise<unknown>;
  confirm?: string;
  kind?: "primary" | "danger" | "plain";
  onDone?: (result: unknown) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const click = async () => {
    if (props.confirm && !window.confirm(props.confirm)) return;
    setBusy(true);
    setError(null);
    try {
      const result = await props.run();
      props.onDone?.(result);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" class={props.kind ?? "plain"} disabled={busy} onClick={click} aria-busy={busy}>
        {busy ? `${props.label}…` : props.label}
      </button>
      {error ? (
        <span class="inline-error" role="alert">
          {describe(error)}
        </span>
      ) : null}
    </span>
  );
}

export function KeyValues({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="kv">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

// A labelled drop-down: options are values (shown humanized) or [value, label] pairs.
export function SelectField(props: { label: string; value: string; options: (string | [string, string])[]; onChange: (value: string) => void; hint?: string }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id) => (
        <select id={id} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
          {props.options.map((o) => {
            const [value, label] = typeof o === "string" ? [o, humanize(o)] : o;
            return (
              <option key={value} value={value}>
                {label}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}

// A form's submit and cancel buttons; the submit says it is busy while the form's action runs.
export function FormButtons({ busy, label, busyLabel = "Saving…", onCancel }: { busy: boolean; label: string; busyLabel?: string; onCancel: () => void }) {
  return (
    <div class="buttons">
      <button class="primary" type="submit" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
      <button class="plain" type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

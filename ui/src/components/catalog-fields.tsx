// Inputs built from the server's description of a kind (GET /catalog): one real input per field —
// a select for an enum or a credential, a number, a checkbox, a text area for PEM, headers and
// templates, a write-only box for a secret — labelled as the catalog labels it, with its help
// line, its example as placeholder, and the server's 422 message beside the field it names.
import type { JSX } from "preact";
import type { CatalogField } from "../api/types";

// The field a 422 names, to show the message beside it.
export { errorField } from "../api/client";

export type Values = Record<string, string>;

// One input for `field`. `label`: the accessible name when the input has no visible label (a
// cell of the targets table); `credentials`: the project's credentials, for a credential field.
export function FieldInput(props: {
  field: CatalogField;
  id: string;
  value: string;
  onChange: (v: string) => void;
  label?: string;
  credentials?: { id: string; name: string; kind: string }[];
  secretConfigured?: boolean;
}): JSX.Element {
  const { field: f, id, value, onChange } = props;
  const aria = props.label ? { "aria-label": props.label } : {};
  const onInput = (e: Event) => onChange((e.target as HTMLInputElement).value);
  const required = f.required && !(f.type === "secret" && props.secretConfigured);
  if (f.type === "enum" || f.type === "credential") {
    const options =
      f.type === "credential"
        ? (props.credentials ?? []).filter((c) => (f.credential_kinds ?? []).includes(c.kind)).map((c) => ({ value: c.id, text: `${c.name} (${c.kind})` }))
        : (f.values ?? []).map((v) => ({ value: v, text: v }));
    // A stored value the list does not hold (a credential past the first 100, a command the
    // operator has since removed) stays selected rather than silently lost.
    if (value && !options.some((o) => o.value === value)) options.unshift({ value, text: value });
    return (
      <select id={id} {...aria} value={value} required={required} onChange={onInput}>
        <option value="">{f.required ? "Choose…" : f.default ? `Default (${f.default})` : "None"}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.text}
          </option>
        ))}
      </select>
    );
  }
  if (f.type === "boolean") {
    return (
      <select id={id} {...aria} value={value} onChange={onInput}>
        <option value="">{`Default (${f.default === "true" ? "yes" : "no"})`}</option>
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  }
  if (f.type === "integer") {
    return <input id={id} {...aria} type="number" min={f.min} max={f.max} step={1} required={required} placeholder={f.example ?? f.default ?? ""} value={value} onInput={onInput} />;
  }
  if (f.type === "secret") {
    const placeholder = props.secretConfigured ? "configured — leave empty to keep" : "";
    if (f.multiline) return <textarea id={id} {...aria} rows={4} required={required} placeholder={placeholder} value={value} onInput={onInput} spellcheck={false} autocomplete="off" />;
    return <input id={id} {...aria} type="password" autocomplete="new-password" required={required} placeholder={placeholder} value={value} onInput={onInput} />;
  }
  if (f.type === "pem" || f.type === "text" || f.type === "headers" || f.type === "template") {
    return <textarea id={id} {...aria} rows={f.type === "pem" ? 5 : 3} required={required} placeholder={f.example ?? ""} value={value} onInput={onInput} spellcheck={false} autocomplete="off" />;
  }
  // Plain text: the server's rule, shown beside the field, is the one that decides.
  return <input id={id} {...aria} type="text" autocomplete="off" required={required} maxLength={f.max_length} placeholder={f.example ?? f.default ?? ""} value={value} onInput={onInput} />;
}

// A help line: the catalog's help, and the default when there is one.
export function helpOf(f: CatalogField): string | undefined {
  const parts = [f.help, f.default && f.type !== "boolean" && f.type !== "enum" ? `Default: ${f.default}.` : undefined].filter(Boolean);
  return parts.length ? parts.join(" ") : undefined;
}

// The labelled fields of `fields`, in a grid. `errorField`/`error`: the server's 422, shown
// beside the field it names (`fieldPath(f)` is how the server names each one).
export function CatalogFields(props: {
  fields: CatalogField[];
  values: Values;
  onChange: (name: string, v: string) => void;
  idPrefix: string;
  fieldPath: (f: CatalogField) => string;
  errorField?: string | undefined;
  error?: string | undefined;
  credentials?: { id: string; name: string; kind: string }[];
  secretConfigured?: boolean;
}) {
  return (
    <>
      {props.fields.map((f) => {
        const id = `${props.idPrefix}-${f.in}-${f.name}`;
        const failed = props.errorField === props.fieldPath(f);
        return (
          <div class={failed ? "field invalid" : "field"} key={id}>
            <label for={id}>{f.label + (f.required ? " *" : "")}</label>
            <FieldInput
              field={f}
              id={id}
              value={props.values[f.name] ?? ""}
              onChange={(v) => props.onChange(f.name, v)}
              credentials={props.credentials}
              secretConfigured={props.secretConfigured}
            />
            {failed && (
              <small class="bad-text" role="alert">
                {props.error}
              </small>
            )}
            {helpOf(f) && <small class="muted">{helpOf(f)}</small>}
          </div>
        );
      })}
    </>
  );
}

// The group-to-role mappings of the LDAP and single sign-on settings: one row per group (a DN or
// a claim value) with the org role it grants, and the role of people in no mapped group.
import { everyValue, type OrgRole } from "../api/types";
import { SelectField } from "./ui";

const roles = everyValue<OrgRole>()(["viewer", "operator", "admin", "owner"]);

type Row = { org_role: string } & Record<string, string>;

export function RoleMappings<R extends Row>(props: { rows: R[]; field: keyof R & string; label: string; onChange: (rows: R[]) => void }) {
  const { rows, field, label, onChange } = props;
  const update = (i: number, change: Partial<R>) => onChange(rows.map((x, j) => (i === j ? { ...x, ...change } : x)));
  return (
    <>
      <table class="mappings">
        <caption>Group mappings (the highest role of a person's groups wins)</caption>
        <thead>
          <tr>
            <th scope="col">{label}</th>
            <th scope="col">Org role</th>
            <th scope="col">
              <span class="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m, i) => (
            <tr key={i}>
              <td>
                <input aria-label={`${label} ${i + 1}`} value={m[field]} onInput={(e) => update(i, { [field]: (e.target as HTMLInputElement).value } as Partial<R>)} spellcheck={false} />
              </td>
              <td>
                <select aria-label={`Org role ${i + 1}`} value={m.org_role} onChange={(e) => update(i, { org_role: (e.target as HTMLSelectElement).value } as Partial<R>)}>
                  {roles.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="buttons">
        <button type="button" onClick={() => onChange([...rows, { [field]: "", org_role: "viewer" } as R])}>
          Add a mapping
        </button>
      </div>
    </>
  );
}

// "People in no mapped group": a default role, or refused.
export function FallbackRole(props: { role: OrgRole | null; deny: boolean; onChange: (role: OrgRole | null, deny: boolean) => void }) {
  return (
    <SelectField
      label="People in no mapped group"
      value={props.deny ? "refuse" : props.role ?? "viewer"}
      options={[["viewer", "Viewer"], ["operator", "Operator"], ["admin", "Admin"], ["refuse", "Are refused"]]}
      onChange={(v) => props.onChange(v === "refuse" ? null : (v as OrgRole), v === "refuse")}
    />
  );
}

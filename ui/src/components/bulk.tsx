// Work on many things at once (the certificates list's bulk actions): one request per item, as if
// done one by one (each checked and audited by the server), four at a time. What failed is listed
// per item with the server's reason; nothing stops at the first failure.
import { describe } from "../api/client";

export interface Outcome {
  name: string;
  ok: boolean;
  text: string; // what happened, in words: the server's reason when it failed
}

export async function runEach<T>(items: T[], name: (item: T) => string, work: (item: T) => Promise<unknown>, done: string): Promise<Outcome[]> {
  const out: Outcome[] = new Array<Outcome>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        await work(items[i]);
        out[i] = { name: name(items[i]), ok: true, text: done };
      } catch (e) {
        out[i] = { name: name(items[i]), ok: false, text: describe(e) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, items.length) }, worker));
  return out;
}

// "Renewal: 3 done, 1 failed", then each failure by name (and the ones that worked, folded).
export function Outcomes({ action, outcomes, onDismiss }: { action: string; outcomes: Outcome[]; onDismiss: () => void }) {
  const failed = outcomes.filter((o) => !o.ok);
  const worked = outcomes.filter((o) => o.ok);
  return (
    <div class={`banner ${failed.length ? "error" : "ok"}`} role={failed.length ? "alert" : "status"} aria-label={`${action}: results`}>
      <p>
        {action}: {worked.length} done{failed.length ? `, ${failed.length} failed` : ""}.{" "}
        <button type="button" class="plain small" onClick={onDismiss}>
          Dismiss
        </button>
      </p>
      {failed.length > 0 && (
        <ul class="outcomes">
          {failed.map((o, i) => (
            <li key={i}>
              <strong>{o.name}</strong>: {o.text}
            </li>
          ))}
        </ul>
      )}
      {worked.length > 0 && (
        <details>
          <summary>Done ({worked.length})</summary>
          <ul class="outcomes">
            {worked.map((o, i) => (
              <li key={i}>
                {o.name}: {o.text}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

// Times in the user's time zone and language (from /auth/me/profile), durations and sizes.

let zone = "UTC";
let language = "en";

export function setLocale(timeZone: string, lang: string): void {
  try {
    new Intl.DateTimeFormat(lang, { timeZone });
    zone = timeZone;
    language = lang;
  } catch {
    zone = "UTC";
    language = "en";
  }
}

export const timeZone = () => zone;

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(language, {
    timeZone: zone,
    year: "numeric",
    month: "short",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  }).format(d);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { timeZone: zone, year: "numeric", month: "short", day: "2-digit" }).format(d);
}

// "26 Nov": a day without its year, for a chart's axis.
export function formatDay(when: Date): string {
  return new Intl.DateTimeFormat(language, { timeZone: zone, month: "short", day: "numeric" }).format(when);
}

export function daysLeft(iso: string | null | undefined, now = Date.now()): number | null {
  if (!iso) return null;
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return null;
  return Math.floor((t - now) / 86_400_000);
}

export function humanize(word: string): string {
  return word.replace(/_/g, " ");
}

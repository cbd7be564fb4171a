// Times in the user's time zone and language (from /auth/me/profile), durations and sizes.

let zone = "UTC";
let language = "en";
// One formatter per style for the current zone and language: making an Intl.DateTimeFormat costs
// far more than using one, and a table formats a time or two per row.
let formatters = new Map<string, Intl.DateTimeFormat>();

export function setLocale(timeZone: string, lang: string): void {
  try {
    new Intl.DateTimeFormat(lang, { timeZone });
    zone = timeZone;
    language = lang;
  } catch {
    zone = "UTC";
    language = "en";
  }
  formatters = new Map();
}

// The first date formatter of a page load reads the browser's locale and time zone data: tens of
// milliseconds on a slow device. Called while the app waits for its first answers, so that the
// wait, not the first page's rendering, pays for it.
export function warmUpFormatting(): void {
  new Intl.DateTimeFormat(undefined, { timeZone: "UTC", ...styles.time }).format(0);
}

export const timeZone = () => zone;

const styles = {
  time: { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" },
  date: { year: "numeric", month: "short", day: "2-digit" },
  day: { month: "short", day: "numeric" },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

function formatter(style: keyof typeof styles): Intl.DateTimeFormat {
  let f = formatters.get(style);
  if (!f) {
    f = new Intl.DateTimeFormat(language, { timeZone: zone, ...styles[style] });
    formatters.set(style, f);
  }
  return f;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return formatter("time").format(d);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return formatter("date").format(d);
}

// "26 Nov": a day without its year, for a chart's axis.
export function formatDay(when: Date): string {
  return formatter("day").format(when);
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

// A window of seconds in words: "7 days", "3 hours", "90 seconds".
export function formatDuration(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds >= 86400 && seconds % 86400 === 0) return unit(seconds / 86400, "day");
  if (seconds >= 3600 && seconds % 3600 === 0) return unit(seconds / 3600, "hour");
  if (seconds >= 60 && seconds % 60 === 0) return unit(seconds / 60, "minute");
  return unit(seconds, "second");
}

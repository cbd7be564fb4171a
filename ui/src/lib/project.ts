// The project the user works in: the one in the address (/p/<id>/...), else the last one used.
const key = "certsteward.project";

export function rememberProject(id: string): void {
  sessionStorage.setItem(key, id);
}

export function lastProject(): string | null {
  return sessionStorage.getItem(key);
}

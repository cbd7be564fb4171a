// The project the user works in: the one in the address (/p/<id>/...), else the last one used.
const key = "certsteward.project";

export function rememberProject(id: string): void {
  sessionStorage.setItem(key, id);
}

// Projects were created or deleted: whoever lists them reads them again.
const changed = "certsteward:projects-changed";
export function projectsChanged(): void {
  window.dispatchEvent(new Event(changed));
}
export function onProjectsChanged(handler: () => void): () => void {
  window.addEventListener(changed, handler);
  return () => window.removeEventListener(changed, handler);
}

export function lastProject(): string | null {
  return sessionStorage.getItem(key);
}

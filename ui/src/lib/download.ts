// Saving what the API answers as a file: the name from Content-Disposition, the bytes through a
// temporary object URL (the only way a POST answer becomes a download).
import { request } from "../api/client";

export async function downloadPost(path: string, body: unknown, fallbackName: string): Promise<void> {
  const response = await request<Response>("POST", path, { body, raw: true });
  const disposition = response.headers.get("Content-Disposition") ?? "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

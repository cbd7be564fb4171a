// Saving what the API answers as a file: the request goes through the API client (so an expired
// session is refreshed and the request retried, and an error is shown in words instead of being
// saved as the file), then the bytes go through a temporary object URL with the name from
// Content-Disposition.

export async function download(answer: Promise<Response>, fallbackName: string): Promise<void> {
  const response = await answer;
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

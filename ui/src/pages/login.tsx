// Sign in: username and password, then the one-time code when the user has TOTP enrolled; or
// single sign-on through the org's identity provider when it is offered.
import { useEffect, useState } from "preact/hooks";
import { api, request } from "../api/client";
import type { LoginResponse } from "../api/types";
import { ErrorBanner, Field } from "../components/ui";
import { useSubmit } from "../lib/load";

export function Login({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [otpSession, setOtpSession] = useState<string | null>(null);
  const [sso, setSso] = useState<{ enabled: boolean; display_name?: string } | null>(null);
  // A single sign-on that failed comes back here with what went wrong (the server's words).
  const [ssoError] = useState(() => new URLSearchParams(window.location.search).get("sso_error"));
  useEffect(() => {
    api.get<{ enabled: boolean; display_name?: string }>("/auth/oidc").then(setSso, () => setSso(null));
    if (ssoError) window.history.replaceState(null, "", window.location.pathname);
  }, []);
  const { busy, error, submit } = useSubmit(async () => {
    if (otpSession) {
      await request("POST", "/auth/otp/verify", { body: { code: code.trim() }, headers: { "X-OTP-Session-ID": otpSession } });
      await onSignedIn();
      return;
    }
    const answer = await api.post<LoginResponse>("/auth/login", { username, password });
    if (answer.otp_required && answer.otp_session_id) {
      setOtpSession(answer.otp_session_id);
      setPassword("");
    } else {
      await onSignedIn();
    }
  });

  return (
    <main class="login" id="main">
      <form onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in to CertSteward</h1>
        <ErrorBanner error={error} />
        {ssoError && !error && (
          <div class="banner error" role="alert">
            {ssoError}
          </div>
        )}
        {otpSession ? (
          <>
            <p>Enter the six-digit code from your authenticator app.</p>
            <Field label="One-time code">
              {(id) => (
                <input
                  id={id}
                  name="code"
                  inputMode="numeric"
                  autocomplete="one-time-code"
                  pattern="[0-9]{6,8}"
                  required
                  value={code}
                  onInput={(e) => setCode((e.target as HTMLInputElement).value)}
                />
              )}
            </Field>
            <button class="primary" type="submit" disabled={busy}>
              {busy ? "Checking…" : "Verify"}
            </button>
            <button
              type="button"
              class="plain"
              onClick={() => {
                setOtpSession(null);
                setCode("");
              }}
            >
              Start again
            </button>
          </>
        ) : (
          <>
            <Field label="Username">
              {(id) => (
                <input
                  id={id}
                  name="username"
                  autocomplete="username"
                  required
                  value={username}
                  onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
                />
              )}
            </Field>
            <Field label="Password">
              {(id) => (
                <input
                  id={id}
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                  value={password}
                  onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
                />
              )}
            </Field>
            <button class="primary" type="submit" disabled={busy}>
              {busy ? "Signing in…" : "Sign in"}
            </button>
            {sso?.enabled && (
              <a class="button" href="/api/v1/auth/oidc/login">
                Sign in with {sso.display_name}
              </a>
            )}
          </>
        )}
      </form>
    </main>
  );
}

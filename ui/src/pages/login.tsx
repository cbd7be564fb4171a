// Sign in: username and password, then the one-time code when the user has TOTP enrolled; or
// single sign-on through the org's identity provider when it is offered.
import { useEffect, useState } from "preact/hooks";
import { login, oidcLoginAddress, oidcOffer, verifyOtp } from "../api/auth";
import type { OidcOffer } from "../api/types";
import { ErrorBanner, Field } from "../components/ui";
import { useSubmit } from "../lib/load";

// What a failed single sign-on comes back with: a code the server chose, worded here (a link
// cannot put its own words on this page).
const ssoMessages: Record<string, string> = {
  no_login: "This browser did not start the sign-in. Start again.",
  login_invalid: "The sign-in could not be checked. Start again.",
  expired: "The sign-in took longer than 10 minutes. Start again.",
  state_mismatch: "The identity provider's answer does not belong to this sign-in. Start again.",
  provider_refused: "The identity provider refused the sign-in.",
  no_code: "The identity provider sent no answer. Start again.",
  token_invalid: "The identity provider's answer could not be verified. Ask an owner to look at the audit log.",
  username_unusable: "Your account at the identity provider has no name usable here. Ask an owner to check the username claim.",
  email_unverified: "The identity provider has not verified your email address.",
  account_conflict: "An account of that name exists here and does not use single sign-on.",
  subject_mismatch: "That name here belongs to another person at the identity provider.",
  user_disabled: "Your account is disabled here.",
  no_role: "Your groups at the identity provider grant no role here. Ask an owner to map one of them.",
  rate_limited: "Too many sign-in attempts from this address. Wait a minute.",
  not_enabled: "Single sign-on is not enabled.",
  provider_unreachable: "The identity provider cannot be reached right now. Try again later.",
};

export function Login({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [otpSession, setOtpSession] = useState<string | null>(null);
  const [sso, setSso] = useState<OidcOffer | null>(null);
  // A single sign-on that failed comes back here with what went wrong (the server's words).
  const [ssoError] = useState(() => {
    const code = new URLSearchParams(window.location.search).get("sso_error");
    return code === null ? null : ssoMessages[code] ?? "Single sign-on failed. Start again.";
  });
  useEffect(() => {
    oidcOffer().then(setSso, () => setSso(null));
    if (ssoError) window.history.replaceState(null, "", window.location.pathname);
  }, []);
  const { busy, error, submit } = useSubmit(async () => {
    if (otpSession) {
      await verifyOtp(otpSession, code.trim());
      await onSignedIn();
      return;
    }
    const answer = await login({ username, password });
    if ("otp_required" in answer && answer.otp_required && answer.otp_session_id) {
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
              <a class="button" href={oidcLoginAddress()}>
                Sign in with {sso.display_name}
              </a>
            )}
          </>
        )}
      </form>
    </main>
  );
}

// Signing in and out, single sign-on, the signed-in user (who they are, the role matrix, their
// profile) and their second factor.
import { address, call } from "./client";
import type { LoginRequest, ProfileChanges } from "./schema.gen";

export function login(credentials: LoginRequest) {
  return call("POST /auth/login", { body: credentials });
}

// The second step of a sign-in with TOTP: the code, for the login's one-time session.
export function verifyOtp(otpSessionId: string, code: string) {
  return call("POST /auth/otp/verify", { headers: { "X-OTP-Session-ID": otpSessionId }, body: { code } });
}

export function logout() {
  return call("POST /auth/logout");
}

export function me() {
  return call("GET /auth/me");
}

export function getProfile() {
  return call("GET /auth/me/profile");
}

export function updateProfile(changes: ProfileChanges) {
  return call("PATCH /auth/me/profile", { body: changes });
}

// Whether single sign-on is offered, and the name of its button.
export function oidcOffer() {
  return call("GET /auth/oidc");
}

// Where the browser goes to sign in through the identity provider.
export function oidcLoginAddress(): string {
  return address("GET /auth/oidc/login");
}

// The redirect URI the identity provider sends the browser back to, on this origin.
export function oidcCallbackAddress(): string {
  return window.location.origin + address("GET /auth/oidc/callback");
}

export function setUpTotp() {
  return call("POST /auth/totp/setup");
}

export function enableTotp(code: string) {
  return call("POST /auth/totp/enable", { body: { code } });
}

export function disableTotp(code: string) {
  return call("POST /auth/totp/disable", { body: { code } });
}

// One's own password (local users): every session ends, this one continues in a new one.
export function changeOwnPassword(currentPassword: string, newPassword: string) {
  return call("POST /auth/password", { body: { current_password: currentPassword, new_password: newPassword } });
}

// One's own live sessions, and ending one of them.
export function listOwnSessions() {
  return call("GET /auth/sessions");
}

export function endOwnSession(sessionId: string) {
  return call("DELETE /auth/sessions/{session_id}", { params: { session_id: sessionId } });
}

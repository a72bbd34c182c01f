// The credential of this tab: a pasted API key, kept in sessionStorage only (gone when the tab
// closes), never in localStorage, a cookie or a URL; or, where the server has an identity
// provider, the person's session (an HttpOnly cookie the script never sees) with its CSRF token,
// which every call sends as `X-CSRF-Token` (docs/dashboard.md "Signing in").

const STORAGE_KEY = "alpha-results.api-key";
let signedIn = null; // GET /ui/session's answer while a person is signed in, else null

export function readKey() {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled: the user signs in again on every load
  }
}

export function storeKey(token) {
  sessionStorage.setItem(STORAGE_KEY, token);
}

export function forgetKey() {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The headers that authenticate a call: the key's, else the session's CSRF token. */
export function credentialHeaders(token) {
  const key = token ?? readKey();
  if (key) return { Authorization: `Bearer ${key}` };
  if (signedIn) return { "X-CSRF-Token": signedIn.csrf_token };
  return {};
}

/** Whether this tab has a credential (a key or a session). */
export function hasCredential() {
  return Boolean(readKey() || signedIn);
}

/** The server's sign-in state: `{provider, signed_in, email?, csrf_token?}` (kept for the calls). */
export async function readSession() {
  try {
    const response = await fetch("/ui/session", { headers: { Accept: "application/json" } });
    const body = response.ok ? await response.json() : { provider: false, signed_in: false };
    signedIn = body.signed_in ? body : null;
    return body;
  } catch {
    signedIn = null;
    return { provider: false, signed_in: false };
  }
}

/** End the person's session at the server (a POST with its CSRF token), then forget it here. */
export async function endSession() {
  if (!signedIn) return;
  await fetch("/ui/sign-out", { method: "POST", headers: { "X-CSRF-Token": signedIn.csrf_token } });
  signedIn = null;
}

// The API key of this tab: kept in sessionStorage only (gone when the tab closes), never in
// localStorage, a cookie or a URL. The server never reads it for the dashboard's own pages.

const STORAGE_KEY = "alpha-results.api-key";

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

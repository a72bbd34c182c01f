// Calls to this server's /v1 API with the tab's credential (session.js): its key as `Authorization: Bearer`, or the signed-in person's session cookie with its CSRF token.
//
// Every failure becomes an ApiError carrying the error envelope's code, message and request_id.
// Requests are paced by the key's own limits: at most MAX_IN_FLIGHT run at a time, and when the
// `RateLimit` header of an answer says the binding window has no request left (`r=0`), the next
// request waits the `t` seconds until it resets (a self-service key allows 5 a second, and an
// alpha's page asks for about ten things at once). A 429 for the per-second or per-minute window
// that slips through is retried after its Retry-After.

import { credentialHeaders } from "./session.js";

const MAX_IN_FLIGHT = 3;
const MAX_RETRIES = 5;
const RETRIED_CODES = new Set(["rate_limit_second", "rate_limit_minute"]);
const LONGEST_WAIT_S = 60;

export class ApiError extends Error {
  constructor({ status, code, message, requestId, details, path }) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.details = details || {};
    this.path = path;
  }
}

export function isAbort(error) {
  return error && error.name === "AbortError";
}

let inFlight = 0;
const waiting = [];

function acquire() {
  if (inFlight < MAX_IN_FLIGHT) {
    inFlight += 1;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

function release() {
  const next = waiting.shift();
  if (next) {
    next(); // the slot passes straight to the next request
  } else {
    inFlight -= 1;
  }
}

// Requests left in the binding window, when it resets, and when the request that said so was sent.
const pace = { left: Infinity, resetAt: 0, sentAt: 0 };

/** Wait until the binding window has a request left, then take it. */
async function takeFromWindow(signal) {
  signal?.throwIfAborted();
  for (;;) {
    const now = Date.now();
    if (now >= pace.resetAt) pace.left = Infinity; // a new window: unknown until the next answer
    if (pace.left > 0) {
      pace.left -= 1;
      return;
    }
    await sleep(pace.resetAt - now + 20, signal);
  }
}

/** Learn the binding window from an answer's `RateLimit` header (`"second";r=4;t=1`). An answer
 * to a request sent before the one that last taught the window is not read: a slow answer (a
 * figure that takes a while) counts in a window that may have rolled over since, and its `r` would
 * reopen a window that a later answer had closed (seen as a 429 on a busy machine). */
function learnWindow(response, sentAt) {
  const match = /;\s*r=(\d+)\s*;\s*t=(\d+)/.exec(response.headers.get("RateLimit") || "");
  if (!match || sentAt < pace.sentAt) return;
  pace.sentAt = sentAt;
  const othersInFlight = inFlight - 1; // sent before this answer, maybe not counted in `r` yet
  pace.left = Math.max(0, Number(match[1]) - othersInFlight);
  pace.resetAt = Date.now() + Number(match[2]) * 1000;
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("aborted", "AbortError"));
    });
  });
}

/** `path` with the non-empty `params` as its query string. */
export function urlOf(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** Tell the page that a request waits for the rate limit (shown in the top bar). */
function announceWait(seconds, code) {
  window.dispatchEvent(new CustomEvent("api-wait", { detail: { seconds, code } }));
}

/** GET `path` (a /v1 path) and return the parsed body; throws ApiError on any failure. */
export async function apiGet(path, params = {}, { signal, token } = {}) {
  const credentials = credentialHeaders(token);
  const target = urlOf(path, params);
  for (let attempt = 0; ; attempt += 1) {
    await acquire();
    let response;
    let body = null;
    try {
      await takeFromWindow(signal);
      const sentAt = performance.now();
      response = await fetch(target, {
        headers: { ...credentials, Accept: "application/json" },
        signal,
      });
      learnWindow(response, sentAt);
      body = await response.json().catch(() => null);
      signal?.throwIfAborted(); // the body's read was cut by the abort: no answer, not an empty one
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new ApiError({
        status: 0,
        code: "network_error",
        message: `The server could not be reached (${error.message}).`,
        requestId: null,
        path: target,
      });
    } finally {
      release();
    }
    if (response.ok) return body;
    const envelope = (body && body.error) || {};
    const code = envelope.code || `http_${response.status}`;
    const retryAfter = Number(response.headers.get("Retry-After") || "1");
    if (response.status === 429 && RETRIED_CODES.has(code) && attempt < MAX_RETRIES && retryAfter <= LONGEST_WAIT_S) {
      announceWait(retryAfter, code);
      await sleep(Math.max(retryAfter, 1) * 1000, signal);
      continue;
    }
    throw new ApiError({
      status: response.status,
      code,
      message: envelope.message || response.statusText || "The request failed.",
      requestId: envelope.request_id || response.headers.get("X-Request-ID"),
      details: envelope.details,
      path: target,
    });
  }
}

/**
 * Every page of a collection: follows `pagination.has_more`, `limit` rows at a time.
 * Returns `{ data, meta, total, pages }` with `meta` of the first page.
 */
export async function apiGetAll(path, params = {}, { limit = 500, signal } = {}) {
  const data = [];
  let meta = {};
  let total = 0;
  let pages = 0;
  for (let offset = 0; ;) {
    const page = await apiGet(path, { ...params, limit, offset }, { signal });
    if (pages === 0) meta = page.meta || {};
    pages += 1;
    data.push(...page.data);
    total = page.pagination.total;
    offset += page.pagination.returned;
    if (!page.pagination.has_more || page.pagination.returned === 0) break;
  }
  return { data, meta, total, pages };
}

/** `/v1/alphas/{alpha}` + `suffix`, with the alpha id as one path segment. */
export function alphaPath(alpha, suffix = "") {
  return `/v1/alphas/${encodeURIComponent(alpha)}${suffix}`;
}

// Sign-in: through the organisation's identity provider where the server has one (a link to
// /ui/sign-in: the server signs the person in and sets its session cookie), or by pasting an API
// key, checked against /v1/me and then kept in this tab's sessionStorage only; every call of the
// dashboard sends it as `Authorization: Bearer`.

import { ApiError, apiGet } from "./api.js";
import { errorBox, fill, h } from "./dom.js";
import { storeKey } from "./session.js";

/** Render the sign-in form into `main`; `onSignedIn(identity)` runs once a key is accepted;
 * `provider`: the server offers signing in with the organisation's identity provider. */
export function renderSignIn(main, onSignedIn, provider = false) {
  const input = h("input", {
    id: "api-key",
    name: "api-key",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    placeholder: "ar_live_…",
    size: "70",
  });
  const outcome = h("div", { class: "sign-in-outcome", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    { class: "sign-in", id: "sign-in" },
    h("label", { for: "api-key" }, "API key"),
    input,
    button,
    outcome,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    button.disabled = true;
    fill(outcome, h("p", { class: "muted" }, "Checking the key…"));
    try {
      const identity = await checkKey(token);
      storeKey(token);
      input.value = "";
      onSignedIn(identity);
    } catch (error) {
      fill(outcome, errorBox(error, "The key was refused"));
    } finally {
      button.disabled = false;
    }
  });
  fill(
    main,
    h(
      "section",
      { class: "panel narrow" },
      h("h1", {}, "Sign in"),
      provider
        ? h(
            "p",
            {},
            h("a", { class: "button", id: "sign-in-provider", href: "/ui/sign-in" }, "Sign in with your organisation"),
            " or paste a key below.",
          )
        : null,
      h(
        "p",
        {},
        "Paste an API key. The dashboard reads everything through this server's ",
        h("code", {}, "/v1"),
        " API with it, so what you see is exactly what the key may read: its endpoint, alpha and run allow-lists and its rate limits apply unchanged.",
      ),
      h(
        "p",
        { class: "muted" },
        "The key stays in this browser tab (sessionStorage): it is sent only as an Authorization header to this server, never stored elsewhere, and is forgotten when you sign out or close the tab.",
      ),
      form,
    ),
  );
  input.focus();
}

/**
 * The key's identity from /v1/me. A key whose allow-list leaves out `meta.me` is still a key
 * (the 403 comes after authentication): accepted, with an identity of its own saying so.
 */
export async function checkKey(token) {
  try {
    const body = await apiGet("/v1/me", {}, { token });
    return body.data;
  } catch (error) {
    if (error instanceof ApiError && error.code === "endpoint_not_allowed") return { key_id: null };
    throw error;
  }
}

// Alpha pickers fed by every page of GET /v1/alphas (only the alphas the key may read).

import { apiGetAll } from "./api.js";
import { h } from "./dom.js";

let listing = null; // one listing per tab visit of these pages: the catalogue changes rarely

/** The alphas the key may read, `[{alpha_id, name, ...}]` (asked once, then kept). */
export async function readableAlphas(signal) {
  if (!listing) listing = apiGetAll("/v1/alphas", {}, { limit: 200, signal }).then((answer) => answer.data);
  try {
    return await listing;
  } catch (error) {
    listing = null;
    throw error;
  }
}

/** A <select> of `alphas` with `chosen` selected and a first empty choice. */
export function alphaSelect(id, alphas, chosen, placeholder = "choose an alpha") {
  return h(
    "select",
    { id, name: id },
    h("option", { value: "" }, placeholder),
    alphas.map((a) => h("option", { value: a.alpha_id, selected: a.alpha_id === chosen }, `${a.alpha_id} · ${a.name ?? ""}`)),
  );
}

/** The query of a fragment like `#/compare?a=x&b=y`. */
export function fragmentQuery() {
  const at = location.hash.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : location.hash.slice(at + 1));
}

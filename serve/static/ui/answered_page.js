// A page drawn from one route's answer (the review queue, the approved book's health): its heading
// and what it shows, a status line while the answer loads, then `draw(answer, status, body)`; a
// refusal or an unreachable server is the route's error in the page. Nothing is computed here.

import { apiGet, isAbort } from "./api.js";
import { errorBox, fill, h, note } from "./dom.js";

/**
 * Fill `main` with the page (`id`: its body's id, `${id}-status` its status line's) and load `path`.
 * `draw(answer, status, body)` writes the status line's text and fills the body.
 */
export function answeredPage(main, { signal }, { id, heading, intro, loading, failure, path }, draw) {
  const status = h("p", { id: `${id}-status`, class: "muted", "aria-live": "polite" }, loading);
  const body = h("div", { id });
  fill(main, h("h1", {}, heading), note(intro, "muted"), status, body);
  (async () => {
    let answer;
    try {
      answer = await apiGet(path, {}, { signal });
    } catch (error) {
      if (isAbort(error)) return;
      status.textContent = "";
      fill(body, errorBox(error, failure));
      return;
    }
    draw(answer, status, body);
  })();
}

// What the analytics panels of an alpha's page share: reading the alpha's route into the panel's
// body (the server's refusal shown there instead, nothing when the user moved on), their titled
// blocks, and the words for the window an answer covers. Each panel says which route, which figures
// and in which words; nothing is computed here.

import { alphaPath, apiGet } from "./api.js";
import { h, readOrShowError } from "./dom.js";

/**
 * The loader of a panel, `load(body, alpha, { signal })`: GET the alpha's `route` (`/analytics/…`)
 * with `params`, then `draw(body, answer)`; a refusal shows in `body` as `failure` ("The costs could
 * not be read"). It returns the answer, or null when there is none.
 */
export function panelLoader(route, failure, draw, params = {}) {
  return async function load(body, alpha, { signal }) {
    const answer = await readOrShowError(body, failure, () => apiGet(alphaPath(alpha, route), params, { signal }));
    if (answer !== null) draw(body, answer);
    return answer;
  };
}

/** The blocks of an answer, each `[title, block]` (`block(answer)`: a node or a list of them) beneath
 * its title, a heading of the panel; a null title: the block alone. */
export function titledBlocks(answer, blocks) {
  return blocks.map(([title, block]) => [title ? h("h3", {}, title) : null, block(answer)]);
}

/** The window an answer covers, as its summary line ends: ", whole history" or ", <from> to <to>". */
export function windowText(window) {
  if (!window || (!window.from && !window.to)) return ", whole history";
  return `, ${window.from ?? "start"} to ${window.to ?? "end"}`;
}

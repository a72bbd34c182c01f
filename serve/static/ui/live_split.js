// The split of the alpha on screen, shared by its page: the live panel (live_panel.js) publishes the
// split of the answer it shows (/analytics/live `split_date`, null when there is none or the key may
// not call the route), and every time chart of the page follows it, shading its out-of-sample part
// (charts.js `shadeAfter`). A chart drawn before the answer is shaded when it comes; one drawn after
// is shaded at once; a what-if split asked in the panel moves the shading of every chart.

import { shadeAfter } from "./charts.js";

export function splitFollower() {
  let split; // undefined: not known yet; null: no split
  let origin = null; // where the split comes from (split_origin): names the part after it
  const plots = new Set();
  return {
    /** The split of the answer now shown ("YYYY-MM-DD" or null) and its `split_origin`. */
    publish(date, from = null) {
      split = date || null;
      origin = from;
      for (const plot of plots) {
        if (plot.root.isConnected) shadeAfter(plot, split, origin);
        else plots.delete(plot); // a chart replaced since (another book, another window)
      }
    },
    /** Shade `plot` after the split, now and whenever it changes; returns `plot`. */
    follow(plot) {
      plots.add(plot);
      if (split !== undefined) shadeAfter(plot, split, origin);
      return plot;
    },
    get split() {
      return split;
    },
  };
}

/** A follower for a page without a split (charts drawn outside an alpha page): follows nothing. */
export const NO_SPLIT = { publish() {}, follow: (plot) => plot, split: null };

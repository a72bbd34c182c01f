// The dashboard's entry point: sign-in, the top bar, and the views (the catalogue at #/, an alpha at
// #/alphas/{alpha_id}, its tear sheet at #/alphas/{alpha_id}/tearsheet, #/compare, #/combine,
// #/report (the comparison report of up to ten alphas), #/review (the review queue), #/health (the approved book's health) and #/activity). Routing is by the URL's
// fragment, so the server serves one page.

import { renderActivity } from "./activity_page.js";
import { renderAlpha } from "./alpha_page.js";
import { renderCatalogue } from "./catalogue.js";
import { renderCombine } from "./combine_page.js";
import { renderCompare } from "./compare_page.js";
import { renderHealth } from "./health_page.js";
import { renderReport } from "./report_page.js";
import { renderReview } from "./review_page.js";
import { add, fill, h } from "./dom.js";
import { endSession, forgetKey, hasCredential, readKey, readSession } from "./session.js";
import { checkKey, renderSignIn } from "./sign_in.js";
import { renderTearsheet } from "./tearsheet.js";

const main = document.getElementById("main");
const identity = document.getElementById("identity");
const signOut = document.getElementById("sign-out");
let current = null; // the AbortController of the view on screen
let provider = false; // whether the server offers "Sign in with your organisation"

function showIdentity(me) {
  fill(identity);
  if (!me) return;
  add(
    identity,
    me.credential === "session"
      ? h("span", { id: "signed-in-person" }, me.email, " · signed in")
      : me.key_id
        ? h("span", {}, me.email ? `${me.email} · ` : "", "key ", h("code", { id: "key-id" }, me.key_id))
        : h("span", {}, "signed in (this key may not call /v1/me)"),
  );
  signOut.hidden = false;
}

// The pages that are not about one alpha, linked from the top bar.
document.querySelector(".topbar .brand").after(
  h(
    "nav",
    { class: "views" },
    h("a", { href: "#/" }, "Alphas"),
    h("a", { href: "#/compare" }, "Compare"),
    h("a", { href: "#/combine" }, "Combine"),
    h("a", { href: "#/report", id: "nav-report" }, "Report"),
    h("a", { href: "#/review", id: "nav-review" }, "Review"),
    h("a", { href: "#/health", id: "nav-health" }, "Health"),
    h("a", { href: "#/activity", id: "nav-activity" }, "Activity"),
  ),
);

function route() {
  current?.abort();
  current = new AbortController();
  const context = { signal: current.signal };
  window.scrollTo(0, 0);
  if (!hasCredential()) {
    signOut.hidden = true;
    fill(identity);
    renderSignIn(
      main,
      (me) => {
        showIdentity(me);
        route();
      },
      provider,
    );
    return;
  }
  const hash = location.hash;
  const alpha = /^#\/alphas\/([^/?#]+)$/.exec(hash);
  const sheet = /^#\/alphas\/([^/?#]+)\/tearsheet$/.exec(hash);
  if (alpha) renderAlpha(main, decodeURIComponent(alpha[1]), context);
  else if (sheet) renderTearsheet(main, decodeURIComponent(sheet[1]), context);
  else if (/^#\/compare(\?|$)/.test(hash)) renderCompare(main, context);
  else if (/^#\/combine(\?|$)/.test(hash)) renderCombine(main, context);
  else if (/^#\/report(\?|$)/.test(hash)) renderReport(main, context);
  else if (/^#\/review$/.test(hash)) renderReview(main, context);
  else if (/^#\/health$/.test(hash)) renderHealth(main, context);
  else if (/^#\/activity(\?|$)/.test(hash)) renderActivity(main, context);
  else renderCatalogue(main, context);
}

signOut.addEventListener("click", async () => {
  forgetKey();
  await endSession();
  route();
});

let waitNote = null;
window.addEventListener("api-wait", (event) => {
  const { seconds, code } = event.detail;
  waitNote?.remove();
  waitNote = h("span", { class: "rate-wait" }, `rate limit (${code}): waiting ${seconds} s`);
  identity.after(waitNote);
  setTimeout(() => waitNote?.remove(), Math.max(seconds, 1) * 1000);
});

window.addEventListener("hashchange", route);

// The person's session, if any (the server's cookie), then a key kept from earlier in this tab:
// show whose it is (a refused key is forgotten).
readSession().then((state) => {
  provider = state.provider;
  if (state.signed_in) {
    showIdentity({ credential: "session", email: state.email });
  } else {
    const kept = readKey();
    if (kept) {
      checkKey(kept)
        .then(showIdentity)
        .catch((error) => {
          if (error.status === 401) {
            forgetKey();
            route();
          }
        });
    }
  }
  route();
});

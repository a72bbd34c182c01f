// Downloads: the source archive (/source/download) and the Parquet exports (/exports lists them,
// /exports/{dataset} signs one). Each answer is a signed, time-limited URL, which the browser
// then follows; the URL is shown with its size and SHA-256 so the file can be checked.

import { alphaPath, apiGet, apiGetAll } from "./api.js";
import { errorBox, fill, h, note, numberCell, readOrShowError, table } from "./dom.js";
import { bytes, DASH, int } from "./format.js";

function follow(signed) {
  const link = h("a", { href: signed.url, download: signed.filename, class: "signed-link" }, signed.filename);
  link.click(); // same-origin URLs download under `filename`; an object store's URL downloads as it names it
  return h(
    "p",
    { class: "signed" },
    "Downloading ",
    h("a", { href: signed.url, download: signed.filename, class: "signed-link" }, signed.filename),
    ` (${bytes(signed.size_bytes)}; link valid ${Math.round(signed.expires_in / 60)} min)`,
    signed.sha256 ? h("span", { class: "sha" }, " · sha256 ", h("code", {}, signed.sha256)) : null,
  );
}

function downloadButton(label, outcome, ask, className) {
  const button = h("button", { type: "button", class: className }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(outcome, note("Signing a URL…"));
    try {
      const answer = await ask();
      fill(outcome, follow(answer.data));
    } catch (error) {
      fill(outcome, errorBox(error, "No download"));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

export async function renderDownloads(body, alpha, { signal }) {
  const sourceOutcome = h("div", { class: "download-outcome", id: "source-outcome" });
  const exportsBody = h("div", { id: "exports" }, note("Loading…"));
  fill(
    body,
    h("h3", {}, "Source archive"),
    h(
      "div",
      { class: "controls" },
      downloadButton(
        "Download source archive",
        sourceOutcome,
        () => apiGet(alphaPath(alpha, "/source/download"), {}, { signal }),
        "download-source",
      ),
    ),
    sourceOutcome,
    h("h3", {}, "Parquet exports"),
    exportsBody,
  );
  const listing = await readOrShowError(exportsBody, "The exports could not be listed", () => apiGetAll(alphaPath(alpha, "/exports"), {}, { limit: 100, signal }));
  if (!listing) return;
  if (listing.data.length === 0) {
    fill(exportsBody, note("No export is available to this key."));
    return;
  }
  const outcome = h("div", { class: "download-outcome", id: "export-outcome" });
  fill(
    exportsBody,
    outcome,
    table(
      ["Dataset", "Book", "File", "Rows", "Size", ""],
      listing.data.map((row) => [
        row.dataset,
        row.book ?? DASH,
        h("code", {}, row.filename),
        numberCell(int(row.rows), row.rows),
        numberCell(bytes(row.size_bytes), row.size_bytes),
        h(
          "td",
          {},
          downloadButton(
            "Download",
            outcome,
            () =>
              apiGet(alphaPath(alpha, `/exports/${encodeURIComponent(row.dataset)}`), { book: row.book }, { signal }),
            "download-export",
          ),
        ),
      ]),
      { className: "data exports" },
    ),
  );
}

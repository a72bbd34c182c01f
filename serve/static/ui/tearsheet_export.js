// A printable sheet (the tear sheet, the comparison report) as one self-contained HTML file: the
// sheet's markup (its charts are inline SVG), the dashboard's stylesheet inlined in a <style>, and
// the answers it shows embedded as JSON. It names no other file and no address, so it opens without
// a network and can be attached to a memo.

function styleSheetText() {
  // The stylesheet this page loaded from this origin (read once, when the button is clicked).
  const link = [...document.querySelectorAll("link[rel=stylesheet]")].find((l) => l.href.endsWith("/dashboard.css"));
  if (!link) return Promise.resolve("");
  return fetch(link.href).then((r) => (r.ok ? r.text() : ""));
}

const escapeHtml = (text) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/**
 * The file's text: `sheet` (an element) titled `title`, with the CSS and `about` (what the sheet is
 * of: `{alpha}` or `{alphas}`) beside the answers in the embedded JSON.
 */
export function sheetHtml(sheet, title, about, answers, css) {
  const copy = sheet.cloneNode(true);
  copy.querySelectorAll("a").forEach((a) => a.replaceWith(...a.childNodes)); // no address in the file
  copy.querySelectorAll(".no-export, button, script").forEach((node) => node.remove());
  // `</script` inside the JSON would end the element early; `<` escaped keeps it data.
  const json = JSON.stringify({ ...about, saved_at: new Date().toISOString(), answers }).replace(/</g, "\\u003c");
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${css.replace(/<\/style/gi, "<\\/style")}</style>`,
    "</head>",
    '<body class="tearsheet-file">',
    copy.outerHTML,
    `<script type="application/json" id="tearsheet-data">${json}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}

/** Save `sheet` as `fileName` (see sheetHtml). */
export async function downloadSheet(sheet, { fileName, title, about }, answers) {
  const html = sheetHtml(sheet, title, about, answers, await styleSheetText());
  const url = URL.createObjectURL(new Blob([html], { type: "text/html" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The tear sheet of `alpha` as `tearsheet-<alpha>.html`. */
export function downloadTearsheet(sheet, alpha, answers) {
  return downloadSheet(sheet, { fileName: `tearsheet-${alpha}.html`, title: `Tear sheet · ${alpha}`, about: { alpha } }, answers);
}

// The tear sheet as one self-contained HTML file: the sheet's markup (its charts are inline SVG),
// the dashboard's stylesheet inlined in a <style>, and the answers it shows embedded as JSON. It
// names no other file and no address, so it opens without a network and can be attached to a memo.

function styleSheetText() {
  // The stylesheet this page loaded from this origin (read once, when the button is clicked).
  const link = [...document.querySelectorAll("link[rel=stylesheet]")].find((l) => l.href.endsWith("/dashboard.css"));
  if (!link) return Promise.resolve("");
  return fetch(link.href).then((r) => (r.ok ? r.text() : ""));
}

const escapeHtml = (text) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/** The file's text: `sheet` (an element) with the CSS and the data. */
export function tearsheetHtml(sheet, alpha, data, css) {
  const copy = sheet.cloneNode(true);
  copy.querySelectorAll("a").forEach((a) => a.replaceWith(...a.childNodes)); // no address in the file
  copy.querySelectorAll(".no-export, button, script").forEach((node) => node.remove());
  // `</script` inside the JSON would end the element early; `<` escaped keeps it data.
  const json = JSON.stringify({ alpha, saved_at: new Date().toISOString(), answers: data }).replace(/</g, "\\u003c");
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<title>Tear sheet · ${escapeHtml(alpha)}</title>`,
    `<style>${css.replace(/<\/style/gi, "<\\/style")}</style>`,
    "</head>",
    '<body class="tearsheet-file">',
    copy.outerHTML,
    `<script type="application/json" id="tearsheet-data">${json}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}

export async function downloadTearsheet(sheet, alpha, data) {
  const html = tearsheetHtml(sheet, alpha, data, await styleSheetText());
  const url = URL.createObjectURL(new Blob([html], { type: "text/html" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `tearsheet-${alpha}.html`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

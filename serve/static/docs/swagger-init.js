// Starts Swagger UI over the OpenAPI document the page embeds as a JSON data block (not a script,
// so the page's Content-Security-Policy needs no 'unsafe-inline' for scripts). Served by
// serve/routes/developer.py for `/docs` and Litestar's `/schema`.
"use strict";

const documentBlock = document.getElementById("openapi-document");
window.ui = SwaggerUIBundle({
  spec: JSON.parse(documentBlock.textContent),
  dom_id: "#swagger-container",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});

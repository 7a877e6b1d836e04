// The API reference: Swagger UI (vendored, server/web/docs-assets/) over our own /v3/openapi.json.
// No outside request: the online validator badge is off.
window.addEventListener("DOMContentLoaded", () => {
  const ui = window.SwaggerUIBundle({
    url: "/v3/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    displayOperationId: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    filter: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
  window.apiReference = ui;
});

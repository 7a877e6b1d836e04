// The API reference: Swagger UI (vendored, server/web/docs-assets/) over our own /v3/openapi.json.
// No outside request: the online validator badge is off. The server draws every operation as a
// plain list first (#reference-list); Swagger UI's bundle is loaded once that list is on screen,
// draws itself hidden and takes the list's place when all its operations are drawn.
(function () {
  "use strict";
  const list = document.getElementById("reference-list");
  const live = document.getElementById("swagger-ui");
  const expected = list ? list.querySelectorAll(".ref-op").length : 0;

  // Swagger UI leaves its server choice without an accessible name.
  function label(root) {
    root.querySelectorAll("select:not([aria-label])").forEach(function (select) {
      if (select.id === "servers") select.setAttribute("aria-label", "Server");
    });
  }

  function show() {
    if (!live.hidden) return;
    if (list) list.remove();
    live.hidden = false;
    window.apiReferenceReady = true;
  }

  function start() {
    const observer = new MutationObserver(function () {
      label(live);
      if (live.hidden && live.querySelectorAll(".opblock").length >= expected) show();
    });
    observer.observe(live, { childList: true, subtree: true });
    const ui = window.SwaggerUIBundle({
      url: "/v3/openapi.json",
      dom_id: "#swagger-ui",
      validatorUrl: null,
      // Deep links put a link inside each operation's and tag's toggle button (nested controls a
      // screen reader cannot reach): off.
      deepLinking: false,
      displayOperationId: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 0,
      filter: true,
      tryItOutEnabled: false,
      persistAuthorization: false,
    });
    window.apiReference = ui;
  }

  function load() {
    const script = document.createElement("script");
    script.src = "/docs/assets/swagger-ui-bundle.js";
    script.onload = start;
    document.head.appendChild(script);
  }

  // After the first frame with the list is painted.
  requestAnimationFrame(function () {
    // The frame the server's list is drawn in (the browser tests time it).
    if (list) window.referenceListDrawn = performance.now();
    setTimeout(load, 0);
  });
})();

// Starts Swagger UI (served by the app from the installed fastapi-offline package; no CDN).
(function () {
  "use strict";
  var el = document.getElementById("swagger-ui");
  if (!el || typeof SwaggerUIBundle === "undefined") { return; }
  SwaggerUIBundle({ url: el.getAttribute("data-spec"), dom_id: "#swagger-ui", deepLinking: false,
                    defaultModelsExpandDepth: 0, docExpansion: "list" });
})();

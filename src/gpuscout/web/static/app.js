// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
  var narrow = window.matchMedia && window.matchMedia("(max-width: 600px)").matches;

  // Filter forms: drop empty fields from the URL and submit selects/checkboxes on change.
  document.querySelectorAll("form[data-clean]").forEach(function (form) {
    form.addEventListener("submit", function () {
      form.querySelectorAll("input, select").forEach(function (el) {
        if (el.name && el.type !== "checkbox" && el.value === "") { el.disabled = true; }
      });
      var page = form.querySelector("input[name=page]");
      if (page) { page.disabled = true; }
    });
    if (form.classList.contains("filters") && !narrow) {
      form.querySelectorAll("select, input[type=checkbox]").forEach(function (el) {
        el.addEventListener("change", function () { form.requestSubmit(); });
      });
    }
  });

  // On a phone the filters fold away (open without JavaScript, and whenever a field has an error).
  if (narrow) {
    // The offers' filters always fold; the advisor's workload form once there are results.
    document.querySelectorAll("details.fold").forEach(function (fold) {
      var workload = fold.id === "workload-fold";
      if (workload && !fold.classList.contains("has-results")) { return; }
      if (!fold.querySelector("[aria-invalid=true]")) { fold.open = false; }
    });
  }
  // A dead end's whole diagnosis folds under its moves; a wide screen has room to show it open.
  if (!narrow) {
    document.querySelectorAll("details.binding-why").forEach(function (fold) { fold.open = true; });
  }
})();

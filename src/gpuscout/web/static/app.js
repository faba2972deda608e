// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";

  // Filter forms: drop empty fields from the URL and submit selects/checkboxes on change.
  document.querySelectorAll("form[data-clean], form.filters").forEach(function (form) {
    form.addEventListener("submit", function () {
      form.querySelectorAll("input, select").forEach(function (el) {
        if (el.name && el.type !== "checkbox" && el.value === "") { el.disabled = true; }
      });
      var page = form.querySelector("input[name=page]");
      if (page) { page.disabled = true; }
    });
    if (form.classList.contains("filters")) {
      form.querySelectorAll("select, input[type=checkbox]").forEach(function (el) {
        el.addEventListener("change", function () { form.requestSubmit(); });
      });
    }
  });

  // Workload form: show only the fields of the chosen kind.
  var kind = document.querySelector("form.workload select[name=kind]");
  function showKind() {
    if (!kind) { return; }
    document.querySelectorAll("form.workload fieldset[data-kind]").forEach(function (fs) {
      var on = fs.getAttribute("data-kind") === kind.value;
      fs.hidden = !on;
      fs.querySelectorAll("input, select").forEach(function (el) { el.disabled = !on; });
    });
  }
  if (kind) { kind.addEventListener("change", showKind); showKind(); }

  // Rows of the offers table: keyboard-friendly hover highlight of the price columns.
  var table = document.getElementById("offers");
  if (table) { table.classList.add("js"); }
})();

// Engram's page-level JavaScript: the dashboard works without it; this only adds
// "select all" for bulk actions and "/" to jump to the search box.
document.addEventListener("change", (event) => {
  const all = event.target.closest("[data-select-all]");
  if (!all) return;
  const form = all.form;
  document.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`)
    .forEach((box) => { if (box.form === form) box.checked = all.checked; });
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.target.closest("input, textarea, select, [contenteditable]")) return;
  const search = document.querySelector("input[type=search]");
  if (search) { event.preventDefault(); search.focus(); }
});
// Filter forms leave their empty fields out of the URL they push (?kind=fact, not ?q=&kind=fact&tag=…).
document.addEventListener("htmx:configRequest", (event) => {
  if (!event.detail.elt.matches("form[data-drop-empty]")) return;
  const data = event.detail.formData;
  if (!data) return;
  for (const key of [...new Set(data.keys())]) {
    if (data.getAll(key).every((value) => value === "")) data.delete(key);
  }
});

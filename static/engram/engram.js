// Engram's page-level JavaScript: the dashboard works without it; this only adds
// "select all" for bulk actions, "/" to jump to the search box, and a message when an
// htmx request is refused.
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
// A refused or failed htmx request swaps nothing, so without this the page looks as if the
// click did nothing: say so in the notice area, with the reason of the server's error
// page (403.html marks it data-error-reason) where it gives one.
function showRequestError(text) {
  const area = document.getElementById("messages");
  if (!area) return;
  const item = document.createElement("li");
  item.className = "error";
  item.dataset.requestError = "";
  item.setAttribute("role", "alert");
  item.textContent = text;
  area.querySelectorAll("[data-request-error]").forEach((old) => old.remove());
  area.append(item);
  area.hidden = false;
  area.scrollIntoView({ block: "nearest" });
}
document.addEventListener("htmx:responseError", (event) => {
  const xhr = event.detail.xhr;
  const page = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
  const reason = page.querySelector("[data-error-reason]")?.textContent.trim();
  showRequestError(reason || `The server could not do this (error ${xhr.status}). ` +
                   "Reload the page and try again.");
});
document.addEventListener("htmx:sendError", () => {
  showRequestError("The server did not answer. Check the connection and try again.");
});
// The next request starts afresh: an old refusal would read as this one's.
document.addEventListener("htmx:beforeRequest", () => {
  const area = document.getElementById("messages");
  if (!area) return;
  area.querySelectorAll("[data-request-error]").forEach((old) => old.remove());
  if (!area.children.length) area.hidden = true;
});

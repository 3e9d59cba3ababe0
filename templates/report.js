/* report.js - inlined into report.html and compare.html by benchgen: click a
   column head (or press Enter on it) to sort its table, again to reverse.
   Numbers sort by their value (data-v), text by its words; cells without a
   number (NA) stay last either way. No network, no storage, nothing else. */
(function () {
  "use strict";
  function num(td) {
    var v = td && td.getAttribute("data-v");
    return v === null || v === undefined ? null : parseFloat(v);
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var rows = Array.prototype.map.call(body.rows, function (r, i) { return [r, i]; });
    rows.sort(function (a, b) {
      var x = a[0].cells[col], y = b[0].cells[col], u = num(x), v = num(y), c;
      if (u !== null && v !== null) c = u - v;
      else if (u !== null) return -1;
      else if (v !== null) return 1;
      else c = (x ? x.textContent : "").localeCompare(y ? y.textContent : "", "en", { numeric: true });
      return c ? c * dir : a[1] - b[1];
    });
    rows.forEach(function (r) { body.appendChild(r[0]); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.title = "Sort by this column";
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, col, th); }
      });
    });
  });
})();

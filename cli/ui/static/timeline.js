// Draws the slot's timeline from the Vega-Lite spec the page embeds as JSON; makes each bar reachable
// by keyboard (Tab, then Enter opens the transaction that wrote it); lets the range control pick an
// "as known at" moment without reloading on every arrow key (the choice goes into the URL on release,
// Enter or the "show" button, so a view can be shared).
(function () {
  var specNode = document.getElementById("timeline-spec");
  var spec = JSON.parse(specNode.textContent);
  var target = document.getElementById("timeline");
  var links = {};
  (function collect(node) {  // label -> href, from the rows the spec carries
    if (Array.isArray(node)) { node.forEach(collect); return; }
    if (node && typeof node === "object") {
      if (Array.isArray(node.values)) {
        node.values.forEach(function (row) { if (row && row.label && row.href) links[row.label] = row.href; });
      }
      Object.keys(node).forEach(function (k) { collect(node[k]); });
    }
  })(spec);
  if (spec && (spec.mark !== undefined || spec.layer)) {
    vegaEmbed(target, spec, { renderer: "svg", actions: false }).then(function (result) {
      target.querySelectorAll("g.mark-rect path[aria-label]").forEach(function (mark) {
        var href = links[mark.getAttribute("aria-label")];
        if (!href) return;
        mark.setAttribute("tabindex", "0");
        mark.setAttribute("role", "link");
        mark.addEventListener("keydown", function (event) {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); window.location.href = href; }
        });
      });
      target.setAttribute("data-rendered", "true");
      window.factledgerView = result.view;
    }).catch(function (error) {
      target.setAttribute("data-error", String(error));
    });
  }
  var range = document.getElementById("known-at-range");
  var select = document.getElementById("known-at");
  var form = document.getElementById("known-at-form");
  if (range && select && form) {
    var labels = JSON.parse(range.getAttribute("data-labels") || "[]");
    var sync = function () {
      var i = Math.min(Number(range.value), select.options.length - 1);
      select.selectedIndex = i;
      range.setAttribute("aria-valuetext", labels[i] || select.options[i].text);
    };
    range.addEventListener("input", sync);
    range.addEventListener("pointerup", function () { sync(); form.submit(); });
    range.addEventListener("keydown", function (event) { if (event.key === "Enter") { event.preventDefault(); sync(); form.submit(); } });
    select.addEventListener("change", function () { form.submit(); });
  }
})();

// Draws the slot's timeline from the Vega-Lite spec the page embeds as JSON, and lets the range
// control pick an "as known at" moment (the choice goes into the URL, so a view can be shared).
(function () {
  var specNode = document.getElementById("timeline-spec");
  var spec = JSON.parse(specNode.textContent);
  var target = document.getElementById("timeline");
  if (spec && spec.mark !== undefined || (spec && spec.layer)) {
    vegaEmbed(target, spec, { renderer: "svg", actions: false }).then(function (result) {
      target.setAttribute("data-rendered", "true");
      window.factledgerView = result.view;
    }).catch(function (error) {
      target.setAttribute("data-error", String(error));
    });
  }
  var range = document.getElementById("known-at-range");
  var select = document.getElementById("known-at");
  if (range && select) {
    range.addEventListener("change", function () {
      select.selectedIndex = Math.min(Number(range.value), select.options.length - 1);
      document.getElementById("known-at-form").submit();
    });
    select.addEventListener("change", function () { document.getElementById("known-at-form").submit(); });
  }
})();

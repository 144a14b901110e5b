// The review queue in place: a decision is sent with fetch (its buttons disabled while it is on its
// way), answered in words on the card ("what closed, what opened"), and the next card gets the focus.
// Keys: j/k next/previous card, a accept, r reject, e edit (the proposal's page), x select for bulk.
// Without script the forms post as usual and the server redirects to the queue at the next card.
(function () {
  var cards = function () { return Array.prototype.slice.call(document.querySelectorAll("#cards article.proposal")); };
  var current = null;

  function focusCard(card) {
    if (!card) { return; }
    if (current) { current.classList.remove("current"); }
    current = card;
    card.classList.add("current");
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: "nearest" });
  }

  function open(card) { return card && !card.classList.contains("decided"); }

  function step(delta) {
    var all = cards();
    var at = current ? all.indexOf(current) : -1;
    for (var i = at + delta; i >= 0 && i < all.length; i += delta) {
      if (open(all[i])) { focusCard(all[i]); return; }
    }
  }

  function lines(data) {
    var out = [data.message || "done"];
    if (data.already) { return out; }
    (data.closed || []).forEach(function (v) { out.push("closed claim version #" + v.id + " " + JSON.stringify(v.value)); });
    (data.opened || []).forEach(function (v) { out.push("opened claim version #" + v.id + " " + JSON.stringify(v.value)); });
    return out;
  }

  function send(form, action) {
    var card = form.closest("article.proposal");
    var buttons = form.querySelectorAll("button");
    var outcome = form.querySelector("output.outcome");
    if (form.getAttribute("aria-busy") === "true") { return; }  // one decision at a time per card
    form.setAttribute("aria-busy", "true");
    buttons.forEach(function (b) { b.disabled = true; });
    outcome.textContent = "sending…";
    var body = new FormData(form);
    body.delete("next");
    fetch(action, { method: "POST", body: body, headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; },
          function () { return { ok: false, data: { error: "the server answered " + response.status } }; });
      })
      .then(function (answer) {
        form.removeAttribute("aria-busy");
        if (!answer.ok) {
          buttons.forEach(function (b) { b.disabled = false; });
          outcome.className = "outcome error";
          outcome.textContent = answer.data.error || "the decision failed";
          return;
        }
        card.classList.add("decided");
        card.setAttribute("data-status", answer.data.status);
        var pick = card.querySelector("input.pick");
        if (pick) { pick.checked = false; pick.disabled = true; }
        var said = document.createElement("ul");
        said.className = "summary";
        lines(answer.data).forEach(function (line) { var li = document.createElement("li"); li.textContent = line; said.appendChild(li); });
        outcome.className = "outcome done";
        outcome.textContent = "";
        outcome.appendChild(said);
        buttons.forEach(function (b) { b.hidden = true; });
        var total = document.getElementById("queue-total");
        if (total && !answer.data.already) {
          var n = parseInt(total.textContent, 10);
          if (!isNaN(n) && n > 0) { total.textContent = total.textContent.replace(/^\d+/, String(n - 1)); }
        }
        step(1);
      })
      .catch(function (error) {
        form.removeAttribute("aria-busy");
        buttons.forEach(function (b) { b.disabled = false; });
        outcome.className = "outcome error";
        outcome.textContent = "not sent: " + error;
      });
  }

  document.querySelectorAll("#cards form.decide").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var via = event.submitter;
      send(form, (via && via.getAttribute("formaction")) || form.getAttribute("action"));
    });
  });

  var pickPage = document.getElementById("pick-page");
  if (pickPage) {
    pickPage.addEventListener("change", function () {
      document.querySelectorAll("#cards input.pick:not(:disabled)").forEach(function (box) { box.checked = pickPage.checked; });
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.target.isContentEditable) { return; }
    if (!current && (event.key === "j" || event.key === "k")) { step(1); event.preventDefault(); return; }
    if (!current) { return; }
    var form = current.querySelector("form.decide");
    if (event.key === "j") { step(1); }
    else if (event.key === "k") { step(-1); }
    else if (event.key === "a" && form && open(current)) { var a = form.querySelector("button.accept"); if (a && !a.disabled) { a.click(); } }
    else if (event.key === "r" && form && open(current)) { var r = form.querySelector("button.reject"); if (r && !r.disabled) { r.click(); } }
    else if (event.key === "e") { window.location.href = "/proposal/" + current.getAttribute("data-id"); }
    else if (event.key === "x") { var box = current.querySelector("input.pick"); if (box && !box.disabled) { box.checked = !box.checked; } }
    else { return; }
    event.preventDefault();
  });

  // Start at the card the URL names (after a decision without script), else at the first.
  var named = window.location.hash && document.getElementById(window.location.hash.slice(1));
  if (named && named.matches("article.proposal")) { focusCard(named); }
})();

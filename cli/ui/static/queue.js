// The review queue in place: a decision is sent with fetch (its buttons disabled while it is on its
// way), answered in words on the card ("what closed, what opened"), and the next card gets the focus.
// Keys: j/k next/previous card, a accept, r reject, e edit (the proposal's page), x select for bulk,
// u undo the last decision made on this page (the reopened proposal takes the card's place).
// Focus roves: each card is one tab stop, and only the card in focus has its links and controls in the
// tab order, so Tab walks card to card instead of through every control of every card.
// Without script the forms post as usual and the server redirects to the queue at the next card.
(function () {
  var list = document.getElementById("cards");
  if (!list) { return; }
  var cards = function () { return Array.prototype.slice.call(list.querySelectorAll("article.proposal")); };
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  var current = null;
  var lastDecided = null;  // the card of the last decision sent from this page (what u undoes)

  function tabbable(card, on) {
    card.querySelectorAll(FOCUSABLE).forEach(function (el) {
      if (on && el.hasAttribute("data-tab")) {
        var was = el.getAttribute("data-tab");
        if (was === "") { el.removeAttribute("tabindex"); } else { el.setAttribute("tabindex", was); }
        el.removeAttribute("data-tab");
      } else if (!on && !el.hasAttribute("data-tab")) {
        el.setAttribute("data-tab", el.getAttribute("tabindex") || "");
        el.setAttribute("tabindex", "-1");
      }
    });
  }

  function makeCurrent(card) {
    if (current === card) { return; }
    if (current) { current.classList.remove("current"); tabbable(current, false); }
    current = card;
    card.classList.add("current");
    tabbable(card, true);
  }

  function focusCard(card) {
    if (!card) { return; }
    makeCurrent(card);
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

  function say(outcome, data) {
    var said = document.createElement("ul");
    said.className = "summary";
    lines(data).forEach(function (line) { var li = document.createElement("li"); li.textContent = line; said.appendChild(li); });
    outcome.className = "outcome done";
    outcome.textContent = "";
    outcome.appendChild(said);
  }

  function post(action, body) {
    return fetch(action, { method: "POST", body: body, headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; },
          function () { return { ok: false, data: { error: "the server answered " + response.status } }; });
      });
  }

  function countDown(delta) {
    var total = document.getElementById("queue-total");
    if (!total) { return; }
    var n = parseInt(total.textContent, 10);
    if (!isNaN(n) && n + delta >= 0) { total.textContent = total.textContent.replace(/^\d+/, String(n + delta)); }
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
    post(action, body)
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
        say(outcome, answer.data);
        buttons.forEach(function (b) { b.hidden = true; });
        if (!answer.data.already) { countDown(-1); }
        var undo = document.createElement("button");
        undo.type = "button";
        undo.className = "undo";
        undo.textContent = "undo (u)";
        undo.addEventListener("click", function () { undoOn(card, undo); });
        outcome.appendChild(undo);
        lastDecided = card;
        step(1);
      })
      .catch(function (error) {
        form.removeAttribute("aria-busy");
        buttons.forEach(function (b) { b.disabled = false; });
        outcome.className = "outcome error";
        outcome.textContent = "not sent: " + error;
      });
  }

  // Undo: the server takes the decision back (or says why the ledger does not allow it); the proposal
  // that reopens it is fetched and takes the card's place, in focus, to be decided again.
  function undoOn(card, button) {
    if (!card || button.disabled) { return; }
    var outcome = card.querySelector("output.outcome");
    var form = card.querySelector("form.decide");
    button.disabled = true;
    var body = new FormData();
    body.append("csrf", form.querySelector("input[name=csrf]").value);
    post("/proposal/" + card.getAttribute("data-id") + "/undo", body)
      .then(function (answer) {
        if (!answer.ok) {
          button.disabled = false;
          var why = document.createElement("p");
          why.className = "error";
          why.textContent = answer.data.error || "the undo failed";
          outcome.appendChild(why);
          return;
        }
        if (lastDecided === card) { lastDecided = null; }
        if (!answer.data.already) { countDown(1); }
        var id = answer.data.reopened.id;
        return fetch("/proposal/" + id, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("article.proposal");
          if (!fresh) { window.location.href = "/proposal/" + id; return; }
          fresh.querySelectorAll("form.edit").forEach(function (f) { f.remove(); });
          var note = document.createElement("p");
          note.className = "undone";
          note.setAttribute("role", "status");
          note.textContent = answer.data.message;
          fresh.insertBefore(note, fresh.children[1] || null);
          var box = card.querySelector("input.pick");
          if (box) {
            var pick = box.cloneNode();
            pick.value = String(id); pick.checked = false; pick.disabled = false;
            pick.setAttribute("aria-label", "select proposal #" + id);
            var title = fresh.querySelector("#proposal-" + id + "-title");
            if (title) { title.insertBefore(pick, title.firstChild); }
          }
          if (current === card) { current = null; }
          card.replaceWith(fresh);
          wire(fresh);
          tabbable(fresh, false);
          focusCard(fresh);
        });
      })
      .catch(function (error) { button.disabled = false; outcome.appendChild(document.createTextNode(" not sent: " + error)); });
  }

  function wire(card) {
    card.setAttribute("tabindex", "0");
    var form = card.querySelector("form.decide");
    if (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var via = event.submitter;
        send(form, (via && via.getAttribute("formaction")) || form.getAttribute("action"));
      });
    }
  }

  cards().forEach(function (card) { wire(card); tabbable(card, false); });
  list.addEventListener("focusin", function (event) {
    var card = event.target.closest && event.target.closest("article.proposal");
    if (card) { makeCurrent(card); }
  });

  var pickPage = document.getElementById("pick-page");
  if (pickPage) {
    pickPage.addEventListener("change", function () {
      list.querySelectorAll("input.pick:not(:disabled)").forEach(function (box) { box.checked = pickPage.checked; });
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.target.isContentEditable) { return; }
    if (event.key === "u") {
      var undo = lastDecided && lastDecided.querySelector("output.outcome button.undo");
      if (undo) { undoOn(lastDecided, undo); event.preventDefault(); }
      return;
    }
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

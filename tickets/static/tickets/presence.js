// The ticket page's heartbeat: tells the desk this operator has the ticket open (and whether they are writing),
// and shows who else has it open ("김상담님이 작성 중"). Presence only informs; the reply itself is checked
// against the newest message on screen (last_seen_message_id), so nothing is sent over a colleague's answer.
(function () {
  "use strict";
  var box = document.getElementById("cs-presence");
  if (!box || !box.dataset.url) { return; }
  var url = box.dataset.url;
  var every = Number(box.dataset.every || 10) * 1000;
  var lastInput = 0;
  var token = document.querySelector("[name=csrfmiddlewaretoken]");
  document.querySelectorAll("#cs-answer textarea").forEach(function (area) {
    area.addEventListener("input", function () { lastInput = Date.now(); });
  });

  function show(present) {
    box.textContent = present.map(function (p) { return p.words; }).join(" · ");
    box.hidden = present.length === 0;
  }

  function beat(leaving) {
    var body = JSON.stringify({
      typing: Date.now() - lastInput < every * 1.5, leaving: !!leaving, page: box.dataset.page || "",
    });
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      keepalive: !!leaving,
      headers: { "Content-Type": "application/json", "X-CSRFToken": token ? token.value : "" },
      body: body,
    }).then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data && !leaving) { show(data.present); } })
      .catch(function () { /* the next beat tries again */ });
  }

  var timer = setInterval(function () { if (!document.hidden) { beat(false); } }, every);
  window.addEventListener("pagehide", function () { clearInterval(timer); beat(true); });
})();

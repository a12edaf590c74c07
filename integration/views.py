"""The embeddable widget: `widget.js` (a launcher with an unread badge that opens the chat in an iframe) and the
frame page (integration/static/integration/frame.js, drawing with the chat page's web/desk.js). The
frame may be embedded only by the integration's allowed origins (CSP frame-ancestors), nothing wider."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET

from accounts.services import token_ttl
from integration.models import Integration
from integration.policy import frame_ancestors
from tickets.services import BODY_MAX

WIDGET_JS = r"""(function () {
  // The launcher on the shop's page. The chat runs in a frame on the desk's origin, loaded with the page (hidden)
  // so a person's answer can show as a badge here before the customer opens it. The frame keeps the token and
  // the conversation in its own storage; this page only hears how many answers are unread and when to close.
  var script = document.currentScript;
  if (!script || document.getElementById("cs-desk-launcher")) return;
  var name = script.getAttribute("data-integration");
  var desk = new URL(script.src).origin;
  var session = {
    customer_id: script.getAttribute("data-customer-id") || "",
    expires_at: script.getAttribute("data-expires-at") || "",
    signature: script.getAttribute("data-signature") || "",
    origin: location.origin
  };
  var openKey = "cs-desk-open:" + name;
  var style = document.createElement("style");
  style.textContent =
    "#cs-desk-launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;display:inline-flex;" +
    "align-items:center;gap:6px;padding:12px 18px;border:0;border-radius:24px;background:#1d4ed8;color:#fff;" +
    "font:600 15px/1.2 system-ui,sans-serif;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.2)}" +
    "#cs-desk-launcher:focus-visible{outline:3px solid #93b4f5;outline-offset:2px}" +
    "#cs-desk-badge{min-width:20px;padding:0 6px;border-radius:10px;background:#d93025;color:#fff;font-size:12px;" +
    "line-height:20px;text-align:center}#cs-desk-badge[hidden]{display:none}" +
    ".cs-desk-sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0)}" +
    "#cs-desk-frame{position:fixed;right:20px;bottom:84px;z-index:2147483001;width:380px;" +
    "max-width:calc(100vw - 40px);height:600px;max-height:calc(100vh - 104px);" +
    "border:1px solid #d1d5db;border-radius:12px;background:#fff;" +
    "box-shadow:0 8px 28px rgba(0,0,0,.18)}#cs-desk-frame[hidden]{display:none!important}" +
    "@media (max-width:480px){#cs-desk-frame{top:0;left:0;right:0;bottom:0;width:100%;max-width:none;" +
    "height:100%;max-height:none;border:0;border-radius:0}}";
  document.head.appendChild(style);

  var frame = document.createElement("iframe");
  frame.id = "cs-desk-frame";
  frame.title = "상담";
  frame.hidden = true;
  // The signed session travels in the fragment: never sent to a server log, read once by the frame.
  frame.src = desk + "/widget/" + encodeURIComponent(name) + "/#" + new URLSearchParams(session).toString();

  var button = document.createElement("button");
  button.type = "button";
  button.id = "cs-desk-launcher";
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", "cs-desk-frame");
  var label = document.createElement("span");
  label.textContent = "상담하기";
  var badge = document.createElement("span");
  badge.id = "cs-desk-badge";
  badge.hidden = true;
  var count = document.createElement("span");
  count.id = "cs-desk-count";
  var spoken = document.createElement("span");
  spoken.className = "cs-desk-sr"; // read, not shown: the name keeps the visible words ("상담하기 1 건의 새 답변")
  spoken.textContent = "건의 새 답변";
  badge.appendChild(count);
  badge.appendChild(spoken);
  button.appendChild(label);
  button.appendChild(badge);

  function remember(open) {
    try {
      if (open) window.sessionStorage.setItem(openKey, "1");
      else window.sessionStorage.removeItem(openKey);
    } catch (e) {}
  }
  function tell(type) {
    if (frame.contentWindow) frame.contentWindow.postMessage({ source: "cs-desk", type: type }, desk);
  }
  function open() {
    frame.hidden = false;
    button.setAttribute("aria-expanded", "true");
    remember(true);
    tell("open");
  }
  function close() {
    frame.hidden = true;
    button.setAttribute("aria-expanded", "false");
    remember(false);
    tell("closed");
    button.focus();
  }
  button.addEventListener("click", function () {
    if (frame.hidden) open();
    else close();
  });
  window.addEventListener("message", function (event) {
    if (event.origin !== desk || event.source !== frame.contentWindow) return;
    var data = event.data || {};
    if (data.source !== "cs-desk") return;
    if (data.type === "unread") {
      var unread = Number(data.count) || 0;
      count.textContent = unread ? String(unread) : "";
      badge.hidden = unread === 0;
    } else if (data.type === "close") {
      close();
    } else if (data.type === "ready" && !frame.hidden) {
      tell("open");
    }
  });
  document.body.appendChild(frame);
  document.body.appendChild(button);
  var wasOpen = false;
  try {
    wasOpen = window.sessionStorage.getItem(openKey) === "1";
  } catch (e) {}
  if (wasOpen) open(); // the widget stays open across the shop's page loads
})();
"""


@require_GET
def widget_js(request):
    response = HttpResponse(WIDGET_JS, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "public, max-age=300"
    return response


@require_GET
@xframe_options_exempt  # replaced by the stricter, per-integration CSP frame-ancestors below
def widget_frame(request, name: str):
    integration = Integration.objects.filter(name=name, active=True).first()
    if integration is None:
        raise Http404
    # The frame keeps the customer's token no longer than the token lives.
    context = {"integration": integration, "token_ttl_s": int(token_ttl().total_seconds()), "body_max": BODY_MAX}
    response = render(request, "integration/widget_frame.html", context)
    response["Content-Security-Policy"] = f"frame-ancestors {frame_ancestors(integration.allowed_origins)}"
    response["Cache-Control"] = "no-store"
    return response

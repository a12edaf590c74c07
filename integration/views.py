"""The embeddable widget: `widget.js` (a launcher that opens the chat in an iframe) and the frame page. The
frame may be embedded only by the integration's allowed origins (CSP frame-ancestors), nothing wider."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET

from integration.models import Integration
from integration.policy import frame_ancestors

WIDGET_JS = r"""(function () {
  var script = document.currentScript;
  var name = script.getAttribute("data-integration");
  var desk = new URL(script.src).origin;
  var session = {
    customer_id: script.getAttribute("data-customer-id") || "",
    expires_at: script.getAttribute("data-expires-at") || "",
    signature: script.getAttribute("data-signature") || ""
  };
  var frame = null;
  var button = document.createElement("button");
  button.type = "button";
  button.id = "cs-desk-launcher";
  button.textContent = "상담하기";
  button.style.cssText = "position:fixed;right:20px;bottom:20px;z-index:2147483000;padding:12px 18px;" +
    "border:0;border-radius:24px;background:#1d4ed8;color:#fff;font-size:15px;cursor:pointer";
  button.addEventListener("click", function () {
    if (!frame) {
      frame = document.createElement("iframe");
      frame.id = "cs-desk-frame";
      frame.title = "상담";
      // The signed session travels in the fragment: never sent to a server log, read once by the frame.
      frame.src = desk + "/widget/" + encodeURIComponent(name) + "/#" + new URLSearchParams(session).toString();
      frame.style.cssText = "position:fixed;right:20px;bottom:76px;z-index:2147483000;width:380px;height:560px;" +
        "border:1px solid #d1d5db;border-radius:12px;background:#fff";
      document.body.appendChild(frame);
    } else {
      frame.style.display = frame.style.display === "none" ? "block" : "none";
    }
  });
  document.body.appendChild(button);
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
    response = render(request, "integration/widget_frame.html", {"integration": integration})
    response["Content-Security-Policy"] = f"frame-ancestors {frame_ancestors(integration.allowed_origins)}"
    response["Cache-Control"] = "no-store"
    return response

/* 목록과 숫자를 새로고침 없이 최신으로 유지한다 (common/live.py, cs_project/live.py).
 *
 * 몇 초마다 변경 확인 주소에 If-None-Match로 묻는다: 바뀐 것이 없으면 304(본문 없음). 바뀌었으면
 * - 숫자(data-live-count)는 그 자리에서 고친다;
 * - 관리자 목록(#changelist-form)은 지금 주소(필터·검색·정렬·페이지 그대로)를 다시 받아 행을 바꾼다. 운영자가
 *   목록에서 일하는 중이면(선택한 행, 고른 작업, 목록 위의 포인터, 목록·검색·필터 안의 포커스) 행을 움직이지 않고
 *   "새 항목 N건 — 새로고침" 버튼을 보인다. 적용할 때는 선택한 행과 고른 작업을 그대로 두고, 검색창은 건드리지 않는다.
 * 탭이 숨겨져 있으면 묻지 않고(Page Visibility), 오류가 나면 간격을 두 배씩 늘린다(최대 60초).
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch || !window.DOMParser) return;
  var LIVE_URL = script.getAttribute("data-live-url");
  var etag = script.getAttribute("data-live-etag") || "";
  // 묻는 주기 (테스트와 벤치마크는 window.CSDESK_LIVE_MS로 바꾼다).
  var INTERVAL = Number(window.CSDESK_LIVE_MS) || 2000;
  var MAX_DELAY = 60000;
  var delay = INTERVAL;
  var timer = null;
  var busy = false;
  var stopped = false;
  var pending = null; // 받아 두었지만 아직 화면에 넣지 않은 목록: {form, fresh}
  var pointerOnList = false;
  var banner = null;
  var status = null;

  // fetch() has no time limit of its own: a question that hangs must not stop the polling for good.
  function fetchWithin(url, options) {
    if (!window.AbortController) return fetch(url, options);
    var controller = new AbortController();
    var timeout = window.setTimeout(function () {
      controller.abort();
    }, 15000);
    options.signal = controller.signal;
    return fetch(url, options).finally(function () {
      window.clearTimeout(timeout);
    });
  }

  function schedule(ms) {
    window.clearTimeout(timer);
    timer = window.setTimeout(tick, ms);
  }

  function tick() {
    timer = null;
    if (stopped || busy || document.hidden) return;
    if (pending && !engaged()) applyList();
    busy = true;
    var headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    fetchWithin(LIVE_URL, { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 304) return null;
        if (response.status === 401 || response.status === 403) {
          stopped = true; // 로그아웃되었거나 권한이 없어졌다: 더 묻지 않는다
          return null;
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        var next = response.headers.get("ETag") || "";
        return response.json().then(function (body) {
          updateCounts(body.counts || {});
          return refreshList();
        }).then(function () {
          etag = next; // 목록까지 받은 뒤에만: 실패하면 다음에 다시 받는다
        });
      })
      .then(function () {
        delay = INTERVAL;
      })
      .catch(function () {
        delay = Math.min(delay * 2, MAX_DELAY);
      })
      .then(function () {
        busy = false;
        if (!stopped && !document.hidden) schedule(delay);
      });
  }

  // --- 숫자 -------------------------------------------------------------------------------------
  function updateCounts(counts) {
    Object.keys(counts).forEach(function (key) {
      var n = Number(counts[key]) || 0;
      document.querySelectorAll('[data-live-count="' + key + '"]').forEach(function (el) {
        el.textContent = n + "건";
      });
      document.querySelectorAll('[data-live-hide-zero="' + key + '"]').forEach(function (el) {
        el.hidden = n === 0;
      });
    });
  }

  // --- 목록 -------------------------------------------------------------------------------------
  function listForm() {
    return document.getElementById("changelist-form");
  }

  function rowKey(row) {
    var box = row.querySelector("input.action-select");
    if (box) return box.value;
    var link = row.querySelector("a[href]");
    return link ? link.getAttribute("href") : row.textContent;
  }

  function rows(root) {
    return Array.prototype.slice.call(root.querySelectorAll("#result_list tbody tr"));
  }

  function rowsText(root) {
    return rows(root)
      .map(function (row) {
        return row.textContent.replace(/\s+/g, " ").trim();
      })
      .join("\n");
  }

  function refreshList() {
    if (!listForm()) return null;
    return fetchWithin(window.location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok || response.redirected) throw new Error("list " + response.status);
        return response.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var form = doc.getElementById("changelist-form");
        if (!form) throw new Error("no list in the page");
        if (rowsText(doc) === rowsText(document)) {
          pending = null;
          showBanner();
          return;
        }
        var shown = {};
        rows(document).forEach(function (row) {
          shown[rowKey(row)] = true;
        });
        var fresh = rows(doc).filter(function (row) {
          return !shown[rowKey(row)];
        }).length;
        pending = { form: form, fresh: fresh };
        if (engaged()) showBanner();
        else applyList();
      });
  }

  // 운영자가 목록에서 일하는 중인가: 이때는 행이 손 아래에서 움직이지 않게 한다.
  function engaged() {
    var form = listForm();
    if (!form) return false;
    if (form.querySelector("input.action-select:checked")) return true;
    var action = form.querySelector("select[name=action]");
    if (action && action.value) return true;
    var active = document.activeElement;
    if (active && active !== document.body) {
      if (form.contains(active)) return true;
      var areas = document.querySelectorAll("#changelist-search, #changelist-filter, #cs-live-banner");
      for (var i = 0; i < areas.length; i++) if (areas[i].contains(active)) return true;
    }
    return pointerOnList;
  }

  function applyList() {
    var update = pending;
    pending = null;
    showBanner();
    var form = listForm();
    if (!update || !form) return;
    var checked = {};
    form.querySelectorAll("input.action-select:checked").forEach(function (box) {
      checked[box.value] = true;
    });
    var actionSelect = form.querySelector("select[name=action]");
    var action = actionSelect ? actionSelect.value : "";
    var shown = {};
    rows(document).forEach(function (row) {
      shown[rowKey(row)] = true;
    });

    form.innerHTML = update.form.innerHTML; // 같은 form 요소: 그 밖의 검색창·필터·입력 중인 글자는 그대로

    var boxes = form.querySelectorAll("input.action-select");
    boxes.forEach(function (box) {
      if (checked[box.value]) box.checked = true;
    });
    actionSelect = form.querySelector("select[name=action]");
    if (actionSelect && action) actionSelect.value = action;
    if (boxes.length && typeof window.Actions === "function") {
      window.Actions(boxes); // Django의 선택 개수·전체 선택을 새 행에 다시 연결
      boxes.forEach(function (box) {
        if (box.checked) box.dispatchEvent(new Event("change", { bubbles: true }));
      });
    }
    var added = 0;
    rows(document).forEach(function (row) {
      if (!shown[rowKey(row)]) {
        row.classList.add("cs-live-new");
        added++;
      }
    });
    announce(added ? "새 항목 " + added + "건이 목록에 추가되었습니다." : "목록을 최신 상태로 바꾸었습니다.");
  }

  function showBanner() {
    var form = listForm();
    if (!form) return;
    if (!banner) {
      banner = document.createElement("div");
      banner.id = "cs-live-banner";
      banner.className = "cs-live-banner";
      var button = document.createElement("button");
      button.type = "button";
      button.id = "cs-live-apply";
      button.className = "button";
      button.addEventListener("click", function () {
        applyList();
        var first = listForm() && listForm().querySelector("#result_list");
        if (first) first.setAttribute("tabindex", "-1");
        if (first) first.focus();
      });
      banner.appendChild(button);
      form.parentNode.insertBefore(banner, form);
    }
    banner.hidden = !pending;
    if (pending) {
      banner.firstChild.textContent = pending.fresh
        ? "새 항목 " + pending.fresh + "건 — 새로고침"
        : "목록이 바뀌었습니다 — 새로고침";
    }
  }

  function announce(text) {
    if (!status) {
      status = document.createElement("div");
      status.id = "cs-live-status";
      status.className = "cs-live-sr";
      status.setAttribute("role", "status");
      status.setAttribute("aria-live", "polite");
      document.body.appendChild(status);
    }
    status.textContent = text;
  }

  function start() {
    var form = listForm();
    if (form) {
      form.addEventListener("pointerenter", function () {
        pointerOnList = true;
      });
      form.addEventListener("pointerleave", function () {
        pointerOnList = false;
      });
    }
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) {
        window.clearTimeout(timer); // 숨긴 탭은 묻지 않는다
        timer = null;
      } else {
        delay = INTERVAL;
        schedule(0); // 돌아오면 바로 한 번
      }
    });
    window.addEventListener("online", function () {
      delay = INTERVAL;
      schedule(0);
    });
    schedule(INTERVAL);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

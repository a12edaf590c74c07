/*
 * 쇼핑몰 위젯의 창 (iframe, 데스크 출처). 채팅 페이지와 같은 web/desk.js로 그리고 같은 /api/live/를 묻는다.
 *
 * 쇼핑몰이 서명한 로그인(주소의 # 뒤)은 처음 한 번만 토큰으로 바꾸고, 토큰과 대화 번호는 이 창 출처의 localStorage에
 * 고객별로 둔다: 쇼핑몰 페이지를 다시 열어도 같은 대화가 이어지고 서명을 다시 쓰지 않는다. 토큰이 만료되면(401)
 * 그때의 새 서명으로 다시 바꾼다. 바깥 페이지(widget.js)와는 postMessage로 새 답변 수와 닫기만 주고받는다.
 */
(function () {
  "use strict";

  var D = window.CSDesk;
  var show = D.show;
  var el = D.el;
  var root = document.getElementById("widget");
  var integration = root.getAttribute("data-integration");
  var params = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", location.pathname); // the signature leaves the address bar at once
  var customerId = params.get("customer_id") || "";
  var parentOrigin =
    (location.ancestorOrigins && location.ancestorOrigins.length && location.ancestorOrigins[0]) || params.get("origin") || "";

  var GREETING =
    "AI 상담원이 먼저 답변합니다. 사람 상담원이 필요하면 ‘상담원 연결’이라고 말씀해 주세요. 답변은 이 창과 ‘내 문의’에 표시됩니다.";
  var API = Object.assign({ session: "/api/auth/shop-session/" }, D.CUSTOMER_API);

  // --- 저장: 이 창 출처의 저장소, 쇼핑몰·고객별 ---------------------------------------------------------
  // localStorage first. A browser that blocks a third-party frame's storage (Chromium headless, incognito,
  // blocked third-party cookies) still keeps a partitioned cookie (CHIPS): one per shop site, scoped to this
  // frame's path so the API never receives it, living as long as the token does.
  var storeKey = "csdesk.widget." + integration + "." + customerId;
  var cookieName = "csdesk_w_" + customerId.replace(/[^A-Za-z0-9_-]/g, "");
  var cookiePath = location.pathname;
  var tokenTtlS = Number(root.getAttribute("data-token-ttl")) || 3600;
  var memory = {};
  function readCookie() {
    var parts = document.cookie ? document.cookie.split("; ") : [];
    for (var i = 0; i < parts.length; i++) {
      if (parts[i].indexOf(cookieName + "=") === 0) return decodeURIComponent(parts[i].slice(cookieName.length + 1));
    }
    return null;
  }
  function loadSaved() {
    try {
      var stored = window.localStorage.getItem(storeKey);
      if (stored) return JSON.parse(stored) || {};
    } catch (e) {
      /* blocked: the cookie below */
    }
    try {
      var cookie = readCookie();
      if (cookie) return JSON.parse(cookie) || {};
    } catch (e) {
      /* unreadable: start afresh */
    }
    return memory;
  }
  function lifetimeS(saved) {
    if (!saved.token || !saved.expires) return 0;
    return Math.max(0, Math.round((saved.expires - Date.now()) / 1000));
  }
  function save(patch) {
    var saved = loadSaved();
    Object.keys(patch).forEach(function (key) {
      if (patch[key] === null) delete saved[key];
      else saved[key] = patch[key];
    });
    memory = saved;
    var text = JSON.stringify(saved);
    try {
      window.localStorage.setItem(storeKey, text);
      return;
    } catch (e) {
      /* blocked: the cookie below */
    }
    document.cookie =
      cookieName + "=" + encodeURIComponent(text) + "; Path=" + cookiePath + "; Max-Age=" + lifetimeS(saved) +
      "; Secure; SameSite=None; Partitioned";
  }

  var ui = {};
  [
    "status",
    "log",
    "chips",
    "error",
    "form",
    "text",
    "send",
    "close",
    "tab-chat",
    "tab-inbox",
    "inbox-badge",
    "chat-view",
    "inbox-view",
    "inbox-status",
    "inbox-list",
    "thread-view",
    "thread-back",
    "thread-title",
    "thread-messages",
    "thread-rating",
    "thread-error",
    "thread-form",
    "thread-input",
    "thread-send",
  ].forEach(function (id) {
    ui[id.replace(/-([a-z])/g, function (_, c) {
      return c.toUpperCase();
    })] = document.getElementById(id);
  });

  var state = {
    token: null,
    conversation: null,
    busy: false,
    seen: {},
    lastMessageId: null,
    view: "chat",
    ticketId: null,
    open: false,
    conversationShown: false,
    unread: 0,
  };

  function call(method, path, body, options) {
    return D.api(method, path, body, { token: state.token, timeoutMs: options && options.timeoutMs });
  }

  var thread = D.ticketThread(ui.threadView, call, "thread-rating-form");

  // --- 바깥 페이지 ----------------------------------------------------------------------------
  function tellParent(message) {
    if (window.parent === window || !parentOrigin) return;
    message.source = "cs-desk";
    window.parent.postMessage(message, parentOrigin);
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent || (parentOrigin && event.origin !== parentOrigin)) return;
    var data = event.data || {};
    if (data.source !== "cs-desk") return;
    if (data.type === "open") {
      state.open = true;
      showConversation().then(function () {
        (state.view === "chat" && !ui.text.disabled ? ui.text : ui.close).focus();
      });
    } else if (data.type === "closed") {
      state.open = false;
    }
  });

  ui.close.addEventListener("click", function () {
    state.open = false;
    tellParent({ type: "close" });
  });

  function setUnread(count) {
    count = Number(count) || 0;
    state.unread = count;
    ui.inboxBadge.firstChild.textContent = count ? String(count) : "";
    show(ui.inboxBadge, count > 0);
    tellParent({ type: "unread", count: count });
  }

  // --- 보기 ------------------------------------------------------------------------------------
  function switchView(view) {
    state.view = view;
    show(ui.chatView, view === "chat");
    show(ui.inboxView, view === "inbox");
    show(ui.threadView, view === "thread");
    ui.tabChat.setAttribute("aria-pressed", view === "chat" ? "true" : "false");
    ui.tabInbox.setAttribute("aria-pressed", view === "chat" ? "false" : "true");
    if (view !== "thread") {
      state.ticketId = null;
      thread.forget();
    }
  }

  ui.tabChat.addEventListener("click", function () {
    switchView("chat");
    ui.log.scrollTop = ui.log.scrollHeight;
  });
  ui.tabInbox.addEventListener("click", function () {
    switchView("inbox");
    loadTickets();
  });
  ui.threadBack.addEventListener("click", function () {
    switchView("inbox");
    loadTickets();
  });

  // --- 대화 ------------------------------------------------------------------------------------
  var cardOptions = {
    onOpenTicket: function (ticketId) {
      openTicket(ticketId);
    },
  };

  function remember(message) {
    state.seen[D.messageKey(message)] = true;
    if (message.id !== undefined && message.id !== null) {
      var n = Number(message.id);
      if (!isNaN(n) && (state.lastMessageId === null || n > state.lastMessageId)) state.lastMessageId = n;
    }
  }

  function emptyState() {
    D.clear(ui.log);
    var box = el("div", "chat__empty");
    box.appendChild(el("p", "chat__empty-title", "무엇을 도와드릴까요?"));
    box.appendChild(el("p", "chat__empty-text", GREETING));
    ui.log.appendChild(box);
  }

  function append(node) {
    var empty = ui.log.querySelector(".chat__empty");
    if (empty) empty.remove();
    ui.log.appendChild(node);
    ui.log.scrollTop = ui.log.scrollHeight;
    return node;
  }

  function showError(node, message) {
    node.textContent = message || "";
    show(node, Boolean(message));
  }

  function setBusy(busy) {
    state.busy = busy;
    ui.send.disabled = busy || !state.token;
    ui.send.setAttribute("aria-busy", busy ? "true" : "false");
    Array.prototype.forEach.call(ui.chips.querySelectorAll("button"), function (b) {
      b.disabled = busy;
    });
  }

  function chips(results) {
    D.renderChips(ui.chips, results, sendMessage, state.busy);
  }

  function restoreConversation() {
    if (!state.conversation) return Promise.resolve();
    return call("GET", API.conversation(state.conversation))
      .then(function (data) {
        var messages = data && Array.isArray(data.messages) ? data.messages : [];
        if (!messages.length) return;
        D.clear(ui.log);
        messages.forEach(function (m) {
          append(D.renderMessage(m, cardOptions));
          remember(m);
        });
        var last = messages[messages.length - 1];
        if (last.role === "assistant") chips(last.tool_results);
      })
      .catch(function (err) {
        if (err.kind === "auth") throw err;
        if (err.status === 404 || err.status === 403) {
          state.conversation = null;
          save({ conversation: null });
        }
      });
  }

  // A person's answer or an outcome that arrived since: drawn once; the customer's and the agent's own turns
  // are drawn by the turn that sent them.
  function syncConversation() {
    var id = state.conversation;
    if (!id) return Promise.resolve();
    var path = API.conversation(id) + (state.lastMessageId !== null ? "?after=" + encodeURIComponent(state.lastMessageId) : "");
    return call("GET", path).then(function (data) {
      if (state.conversation !== id) return;
      var messages = data && Array.isArray(data.messages) ? data.messages : [];
      messages.forEach(function (m) {
        if (state.seen[D.messageKey(m)]) return;
        if (m.role === "operator" || m.role === "system") {
          append(D.renderMessage(m, cardOptions));
        }
        remember(m);
      });
    });
  }

  /*
   * The conversation is fetched only while the widget is open: the server counts a person's answer as read
   * once the conversation showing it is fetched, so a closed widget keeps the launcher's badge until opened.
   */
  function showConversation() {
    if (!state.token) return Promise.resolve();
    if (state.conversationShown) return syncConversation().catch(function () {});
    return restoreConversation().then(function () {
      state.conversationShown = true;
      ui.text.disabled = false;
      setBusy(false);
    });
  }

  function sendMessage(text) {
    text = (text || "").trim();
    if (!text || state.busy || !state.token) return;
    showError(ui.error, "");
    D.clear(ui.chips);
    show(ui.chips, false);
    ui.text.value = "";
    setBusy(true);
    append(D.renderMessage({ role: "customer", content: text, created_at: new Date().toISOString() }));
    var typing = append(D.renderTyping());
    var payload = { message: text };
    if (state.conversation) payload.conversation_id = state.conversation;
    call("POST", API.chat, payload, { timeoutMs: 120000 })
      .then(function (data) {
        typing.remove();
        data = data || {};
        if (data.conversation_id) {
          state.conversation = String(data.conversation_id);
          save({ conversation: state.conversation });
        }
        var results = Array.isArray(data.tool_results) ? data.tool_results : [];
        append(
          D.renderMessage(
            { role: "assistant", content: data.reply || "", tool_results: results, created_at: new Date().toISOString() },
            cardOptions
          )
        );
        chips(results);
        liveChanges.now();
      })
      .catch(function (err) {
        typing.remove();
        if (err.kind === "auth") return signedOut();
        showError(ui.error, err.message || D.MSG.server);
        if (!ui.text.value) ui.text.value = text;
      })
      .finally(function () {
        setBusy(false);
        ui.text.focus();
      });
  }

  ui.form.addEventListener("submit", function (event) {
    event.preventDefault();
    sendMessage(ui.text.value);
  });

  // --- 내 문의 ---------------------------------------------------------------------------------
  function loadTickets() {
    return call("GET", API.tickets).then(function (tickets) {
      tickets = Array.isArray(tickets) ? tickets : [];
      D.clear(ui.inboxList);
      ui.inboxStatus.textContent = tickets.length ? "" : "아직 문의가 없습니다. 대화에서 ‘상담원 연결’이라고 말씀하시면 접수됩니다.";
      var total = 0;
      tickets.forEach(function (t) {
        var unread = Number(t.unread) || 0;
        total += unread;
        ui.inboxList.appendChild(D.renderTicketItem(t, openTicket));
      });
      setUnread(total);
      return tickets;
    });
  }

  function renderThread(ticket) {
    thread.render(ticket);
    state.ticketId = ticket.ticket_id;
  }

  function openTicket(id) {
    showError(ui.threadError, "");
    var already = state.view === "thread" && state.ticketId === id;
    if (!already) {
      switchView("thread");
      state.ticketId = id;
      ui.threadTitle.textContent = "문의 " + D.formatNumber("T", id);
      D.clear(ui.threadMessages);
      D.clear(ui.threadRating);
      ui.threadMessages.appendChild(el("p", "chat__loading", "불러오는 중…"));
    }
    return call("GET", API.ticket(id))
      .then(function (data) {
        if (state.view !== "thread" || state.ticketId !== id) return;
        renderThread(data || {});
        if (!already) ui.threadBack.focus();
        return loadTickets();
      })
      .catch(function (err) {
        if (err.kind === "auth") return signedOut();
        showError(ui.threadError, "문의를 불러오지 못했습니다. " + err.message);
      });
  }

  ui.threadForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = ui.threadInput.value.trim();
    if (!text || !state.ticketId || state.threadBusy) return;
    state.threadBusy = true;
    ui.threadSend.disabled = true;
    showError(ui.threadError, "");
    call("POST", API.ticketMessages(state.ticketId), { body: text })
      .then(function (data) {
        ui.threadInput.value = "";
        renderThread(data || {});
      })
      .catch(function (err) {
        if (err.kind === "auth") return signedOut();
        showError(ui.threadError, err.message);
      })
      .finally(function () {
        state.threadBusy = false;
        ui.threadSend.disabled = false;
      });
  });

  // --- 변경 확인 --------------------------------------------------------------------------------
  var liveChanges = D.live({
    token: function () {
      return state.token;
    },
    onChange: function (body) {
      var work = [loadTickets()];
      if (state.open && state.conversationShown) work.push(syncConversation());
      if (state.view === "thread" && state.ticketId) work.push(openTicket(state.ticketId));
      return Promise.all(work).then(function () {
        if (body && typeof body.unread === "number" && body.unread !== state.unread) setUnread(body.unread);
      });
    },
    onAuth: function () {
      signedOut();
    },
  });

  // --- 로그인 -----------------------------------------------------------------------------------
  function setStatus(stateName, text) {
    ui.status.dataset.state = stateName;
    ui.status.textContent = text;
  }

  function ready() {
    setStatus("ready", GREETING);
    tellParent({ type: "ready" });
    liveChanges.start();
    if (state.open) showConversation();
  }

  function signedOut() {
    liveChanges.stop();
    state.token = null;
    save({ token: null });
    ui.text.disabled = true;
    setBusy(false);
    setStatus("refused", "로그인이 만료되었습니다. 쇼핑몰 페이지를 새로 고친 뒤 다시 열어 주세요.");
  }

  function exchange() {
    var expires = Number(params.get("expires_at"));
    if (!customerId || !params.get("signature") || !expires) return Promise.reject(new Error("no session"));
    return fetch(API.session, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "omit",
      body: JSON.stringify({
        integration: integration,
        customer_id: customerId,
        expires_at: expires,
        signature: params.get("signature"),
      }),
    }).then(function (response) {
      return response.json().then(function (body) {
        if (response.status !== 200 || !body.token) throw new Error("refused");
        state.token = body.token;
        // A new customer on this browser starts their own conversation; the token is theirs alone.
        save({ token: body.token, expires: Date.now() + tokenTtlS * 1000 });
      });
    });
  }

  function start() {
    emptyState();
    var saved = loadSaved();
    state.conversation = saved.conversation || null;
    state.token = saved.token || null;
    var signedIn = state.token
      ? loadTickets().catch(function (err) {
          if (err.kind !== "auth") throw err;
          state.token = null;
          save({ token: null });
          return exchange().then(loadTickets);
        })
      : exchange().then(loadTickets);
    signedIn
      .then(ready)
      .catch(function () {
        if (!state.token) {
          setStatus("refused", "로그인 정보를 확인할 수 없습니다. 쇼핑몰에서 다시 열어 주세요.");
          return;
        }
        ready(); // 목록을 못 받았어도 대화는 쓸 수 있다; 변경 확인이 곧 다시 받는다
      });
  }

  start();
})();

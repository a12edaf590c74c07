/*
 * 고객 채팅 화면. 빌드 단계 없는 순수 JavaScript.
 * 그리기·API·변경 확인은 쇼핑몰 위젯과 같은 web/desk.js(window.CSDesk)를 쓴다.
 */
(function () {
  "use strict";

  var D = window.CSDesk;
  var el = D.el;
  var clear = D.clear;
  var show = D.show;
  var badge = D.badge;
  var formatDateTime = D.formatDateTime;
  var formatDate = D.formatDate;
  var formatWon = D.formatWon;
  var formatNumber = D.formatNumber;
  var ApiError = D.ApiError;
  var listFrom = D.listFrom;

  var API = Object.assign(
    {
      token: "/api/auth/token/",
      logout: "/api/auth/logout/",
      orders: "/api/orders/",
      requests: "/api/requests/",
      notices: "/api/me/notices/",
    },
    D.CUSTOMER_API
  );

  var KEYS = {
    token: "csdesk.token",
    username: "csdesk.username",
    displayName: "csdesk.displayName",
    // 대화 번호는 사용자별로 보관한다: 다른 계정으로 로그인하면 남의 대화를 복원하려 하지 않는다.
    conversation: function (username) {
      return "csdesk.conversation." + (username || "_");
    },
  };

  // The page's message box carries the API's limit (the template fills it from tickets.services.BODY_MAX).
  var MAX_MESSAGE = document.getElementById("message-input").maxLength;
  var CHAT_TIMEOUT_MS = 120000;

  var MSG = {
    badLogin: "아이디 또는 비밀번호가 올바르지 않습니다.",
    emptyLogin: "아이디와 비밀번호를 모두 입력해 주세요.",
    expired: D.MSG.expired,
    server: D.MSG.server,
    tooLong: "메시지는 " + MAX_MESSAGE.toLocaleString("ko-KR") + "자까지 입력할 수 있습니다.",
    lostConversation: "이전 대화를 찾을 수 없어 새 대화를 시작합니다. 메시지를 다시 보내 주세요.",
  };

  // --- 저장소 (sessionStorage가 막힌 브라우저에서도 동작하도록) ---------------------------------
  var memoryStore = {};
  var store = {
    get: function (key) {
      try {
        return window.sessionStorage.getItem(key);
      } catch (e) {
        return Object.prototype.hasOwnProperty.call(memoryStore, key) ? memoryStore[key] : null;
      }
    },
    set: function (key, value) {
      try {
        window.sessionStorage.setItem(key, value);
      } catch (e) {
        memoryStore[key] = String(value);
      }
    },
    remove: function (key) {
      try {
        window.sessionStorage.removeItem(key);
      } catch (e) {
        /* 무시 */
      }
      delete memoryStore[key];
    },
  };

  function getToken() {
    return store.get(KEYS.token);
  }
  function getUsername() {
    return store.get(KEYS.username) || "";
  }
  function getConversationId() {
    return store.get(KEYS.conversation(getUsername()));
  }
  function setConversationId(id) {
    store.set(KEYS.conversation(getUsername()), String(id));
  }
  function clearConversationId() {
    store.remove(KEYS.conversation(getUsername()));
  }


  // --- DOM 도우미 --------------------------------------------------------------------------
  function $(id) {
    return document.getElementById(id);
  }

  // --- API -------------------------------------------------------------------------------
  function api(method, path, body, options) {
    options = options || {};
    return D.api(method, path, body, {
      token: options.anonymous ? null : getToken(),
      timeoutMs: options.timeoutMs,
    });
  }

  // --- 화면 요소 ----------------------------------------------------------------------------
  var ui = {};
  var state = { busy: false, sidebarSeq: 0, seen: {}, lastMessageId: null, restoring: false };

  function cacheElements() {
    [
      "login-view",
      "login-form",
      "login-username",
      "login-password",
      "login-error",
      "login-button",
      "app-view",
      "user-box",
      "user-name",
      "logout-button",
      "refresh-button",
      "orders-list",
      "orders-status",
      "requests-list",
      "requests-status",
      "new-chat-button",
      "message-list",
      "quick-replies",
      "chat-error",
      "chat-form",
      "message-input",
      "message-counter",
      "send-button",
      "inbox-button",
      "inbox-badge",
      "inbox-count",
      "history-button",
      "history-panel",
      "history-status",
      "history-list",
      "ticket-view",
      "ticket-title",
      "ticket-close",
      "ticket-messages",
      "ticket-error",
      "ticket-form",
      "ticket-input",
      "ticket-send",
      "ticket-rating",
      "notices-panel",
      "notices-toggle",
      "notices-status",
    ].forEach(function (id) {
      ui[id.replace(/-([a-z])/g, function (_, c) { return c.toUpperCase(); })] = $(id);
    });
  }

  function setButtonBusy(button, busy, busyLabel, idleLabel) {
    button.disabled = busy;
    button.setAttribute("aria-busy", busy ? "true" : "false");
    var spinner = button.querySelector(".spinner");
    var label = button.querySelector(".btn__label");
    if (spinner) spinner.hidden = !busy;
    if (label) label.textContent = busy ? busyLabel : idleLabel;
  }

  function showError(node, message) {
    node.textContent = message || "";
    show(node, Boolean(message));
  }

  // --- 로그인 / 로그아웃 ---------------------------------------------------------------------
  function showLogin(message) {
    show(ui.appView, false);
    show(ui.userBox, false);
    show(ui.loginView, true);
    showError(ui.loginError, message || "");
    ui.loginPassword.value = "";
    (ui.loginUsername.value ? ui.loginPassword : ui.loginUsername).focus();
  }

  function showApp() {
    show(ui.loginView, false);
    show(ui.appView, true);
    show(ui.userBox, true);
    var name = store.get(KEYS.displayName) || getUsername();
    ui.userName.textContent = name ? name + " 님, 안녕하세요" : "";
    showError(ui.chatError, "");
    refreshSidebar();
    restoreConversation();
    loadNotices();
    startPolling();
    // The answer e-mail links to the thread (/?ticket=T00001): open it once signed in.
    var linked = state.linkedTicket;
    state.linkedTicket = null;
    if (linked) openTicket(linked);
  }

  // --- 이메일 알림 ----------------------------------------------------------------------------
  // 답변이 오면 메일로도 알릴지. 서버가 이 설정을 모르면(404) 스위치를 보이지 않는다.
  function loadNotices() {
    show(ui.noticesPanel, false);
    api("GET", API.notices)
      .then(function (data) {
        if (!data || typeof data.email_notices !== "boolean") return;
        ui.noticesToggle.checked = data.email_notices;
        ui.noticesStatus.textContent = "";
        show(ui.noticesPanel, true);
      })
      .catch(function (err) {
        if (err.kind === "auth") handleUnauthorized();
      });
  }

  function onNoticesChange() {
    var wanted = ui.noticesToggle.checked;
    ui.noticesToggle.disabled = true;
    api("PUT", API.notices, { email_notices: wanted })
      .then(function (data) {
        var on = data && typeof data.email_notices === "boolean" ? data.email_notices : wanted;
        ui.noticesToggle.checked = on;
        ui.noticesStatus.textContent = on ? "답변이 오면 이메일로도 알려 드립니다." : "이메일 알림을 껐습니다.";
      })
      .catch(function (err) {
        if (err.kind === "auth") return handleUnauthorized();
        ui.noticesToggle.checked = !wanted;
        ui.noticesStatus.textContent = "알림 설정을 바꾸지 못했습니다. " + err.message;
      })
      .finally(function () {
        ui.noticesToggle.disabled = false;
      });
  }

  function resetAppView() {
    clear(ui.ordersList);
    clear(ui.requestsList);
    ui.ordersStatus.textContent = "";
    ui.requestsStatus.textContent = "";
    resetConversationView();
  }

  function handleUnauthorized() {
    stopPolling();
    closeTicket();
    store.remove(KEYS.token);
    resetAppView();
    showLogin(MSG.expired);
  }

  function onLoginSubmit(event) {
    event.preventDefault();
    var username = ui.loginUsername.value.trim();
    var password = ui.loginPassword.value;
    if (!username || !password) {
      showError(ui.loginError, MSG.emptyLogin);
      return;
    }
    showError(ui.loginError, "");
    setButtonBusy(ui.loginButton, true, "로그인 중…", "로그인");

    api("POST", API.token, { username: username, password: password }, { anonymous: true })
      .then(function (data) {
        if (!data || !data.token) throw new ApiError("http", 0, MSG.server, data);
        store.set(KEYS.token, data.token);
        // 대화 보관 키는 소문자 아이디로 (C003과 c003은 같은 계정), 인사는 고객 이름으로.
        store.set(KEYS.username, username.toLowerCase());
        store.set(KEYS.displayName, data.display_name || username);
        ui.loginPassword.value = "";
        showApp();
      })
      .catch(function (err) {
        var message = MSG.server;
        if (err instanceof ApiError) {
          // 토큰 발급 API는 잘못된 자격 증명에 400을 준다.
          message = err.kind === "bad_request" || err.kind === "auth" ? MSG.badLogin : err.message;
        }
        showError(ui.loginError, message);
        ui.loginPassword.focus();
      })
      .finally(function () {
        setButtonBusy(ui.loginButton, false, "로그인 중…", "로그인");
      });
  }

  function onLogout() {
    // 서버에서도 이 토큰을 폐기한다. 실패해도(이미 만료 등) 화면은 로그아웃한다.
    if (getToken()) api("POST", API.logout).catch(function () {});
    stopPolling();
    closeTicket();
    clearConversationId();
    store.remove(KEYS.token);
    store.remove(KEYS.username);
    store.remove(KEYS.displayName);
    resetAppView();
    setInboxBadge(0);
    show(ui.historyPanel, false);
    ui.loginUsername.value = "";
    showLogin("");
  }

  // --- 사이드 패널: 내 주문 / 내 요청 -----------------------------------------------------------
  function renderOrders(orders) {
    clear(ui.ordersList);
    if (!orders.length) {
      ui.ordersStatus.textContent = "주문 내역이 없습니다.";
      return;
    }
    ui.ordersStatus.textContent = "";
    orders.forEach(function (o) {
      var li = el("li", "item");
      var head = el("div", "item__head");
      head.appendChild(el("span", "item__id", o.order_id));
      head.appendChild(badge(o.status, o.status_display));
      li.appendChild(head);
      li.appendChild(el("p", "item__title", o.product_name));
      var meta = [];
      if (o.option) meta.push(o.option);
      if (o.quantity !== undefined && o.quantity !== null) meta.push(o.quantity + "개");
      var won = formatWon(o.amount);
      if (won) meta.push(won);
      if (meta.length) li.appendChild(el("p", "item__meta", meta.join(" · ")));
      var dates = [];
      if (o.ordered_at) dates.push("주문 " + formatDate(o.ordered_at));
      if (o.delivered_at) dates.push("배송완료 " + formatDate(o.delivered_at));
      if (dates.length) li.appendChild(el("p", "item__sub", dates.join(" · ")));
      if (o.shipping_address) li.appendChild(el("p", "item__sub item__address", o.shipping_address));
      ui.ordersList.appendChild(li);
    });
  }

  function renderRequests(data) {
    clear(ui.requestsList);
    var actions = listFrom(data, "actions");
    var tickets = data && Array.isArray(data.tickets) ? data.tickets : [];
    if (!actions.length && !tickets.length) {
      ui.requestsStatus.textContent = "아직 요청이 없습니다.";
      setInboxBadge(0);
      return;
    }
    ui.requestsStatus.textContent = "";

    actions.forEach(function (a) {
      var li = el("li", "item");
      var head = el("div", "item__head");
      head.appendChild(el("span", "item__id", formatNumber("A", a.action_id)));
      head.appendChild(badge(a.status, a.status_display));
      li.appendChild(head);
      var title = a.kind_display || a.kind || "처리 요청";
      if (a.order_id) title += " · " + a.order_id;
      li.appendChild(el("p", "item__title", title));
      if (a.detail) li.appendChild(el("p", "item__meta", typeof a.detail === "string" ? a.detail : JSON.stringify(a.detail)));
      if (a.status_message) li.appendChild(el("p", "item__note" + (a.status === "FAILED" ? " item__note--alert" : ""), a.status_message));
      if (a.created_at) li.appendChild(el("p", "item__sub", formatDateTime(a.created_at)));
      ui.requestsList.appendChild(li);
    });

    var unreadTotal = 0;
    tickets.forEach(function (t) {
      unreadTotal += Number(t.unread) || 0;
      ui.requestsList.appendChild(D.renderTicketItem(t, openTicket));
    });
    setInboxBadge(unreadTotal);
  }

  function setInboxBadge(count) {
    count = Number(count) || 0;
    ui.inboxCount.textContent = count ? String(count) : "";
    show(ui.inboxBadge, count > 0);
  }

  // --- 내 문의 스레드 -------------------------------------------------------------------------
  var thread; // drawn by desk.js once the page's elements are known (init)

  function renderThread(ticket) {
    thread.render(ticket);
    state.ticketId = ticket.ticket_id;
  }

  function openTicket(id) {
    showError(ui.ticketError, "");
    if (state.ticketId !== id) {
      thread.forget();
      ui.ticketTitle.textContent = "문의 " + formatNumber("T", id);
      clear(ui.ticketMessages);
      clear(ui.ticketRating);
      ui.ticketMessages.appendChild(el("p", "chat__loading", "불러오는 중…"));
    }
    var wasOpen = !ui.ticketView.hidden;
    show(ui.ticketView, true);
    return api("GET", API.ticket(id))
      .then(function (data) {
        renderThread(data || {});
        if (!wasOpen) ui.ticketClose.focus();
        refreshSidebar(); // 연 문의의 새 답변 배지를 지운다
      })
      .catch(function (err) {
        if (err.kind === "auth") return handleUnauthorized();
        clear(ui.ticketMessages);
        showError(ui.ticketError, "문의를 불러오지 못했습니다. " + err.message);
      });
  }

  function closeTicket() {
    state.ticketId = null;
    thread.forget();
    show(ui.ticketView, false);
    ui.ticketInput.value = "";
  }

  function onTicketSubmit(event) {
    event.preventDefault();
    var text = ui.ticketInput.value.trim();
    if (!text || !state.ticketId || state.ticketBusy) return;
    state.ticketBusy = true;
    showError(ui.ticketError, "");
    setButtonBusy(ui.ticketSend, true, "보내는 중…", "답장 보내기");
    api("POST", API.ticketMessages(state.ticketId), { body: text })
      .then(function (data) {
        ui.ticketInput.value = "";
        renderThread(data || {});
        refreshSidebar();
      })
      .catch(function (err) {
        if (err.kind === "auth") return handleUnauthorized();
        showError(ui.ticketError, err.message); // 입력한 내용은 그대로 남는다
      })
      .finally(function () {
        state.ticketBusy = false;
        setButtonBusy(ui.ticketSend, false, "보내는 중…", "답장 보내기");
      });
  }

  // --- 새 답변: 변경 확인 --------------------------------------------------------------------
  // 상담원 답변과 승인 결과는 이 대화에 덧붙는다: 커서가 움직이면 그 뒤의 메시지, 내 요청·문의, 연 스레드를 받는다.
  function onLiveChange(body) {
    if (body && typeof body.unread === "number") setInboxBadge(body.unread);
    var work = [syncConversation(), refreshSidebar()];
    if (state.ticketId && !ui.ticketView.hidden) work.push(openTicket(state.ticketId));
    return Promise.all(work);
  }

  var liveChanges = D.live({
    token: getToken,
    onChange: onLiveChange,
    onAuth: function () {
      handleUnauthorized();
    },
  });

  function startPolling() {
    liveChanges.start();
  }

  function stopPolling() {
    liveChanges.stop();
  }

  // --- 지난 대화 ------------------------------------------------------------------------------
  function toggleHistory() {
    var open = ui.historyPanel.hidden;
    show(ui.historyPanel, open);
    ui.historyButton.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) loadHistory();
  }

  function loadHistory() {
    clear(ui.historyList);
    ui.historyStatus.textContent = "불러오는 중…";
    api("GET", API.chat)
      .then(function (items) {
        items = Array.isArray(items) ? items : [];
        ui.historyStatus.textContent = items.length ? "" : "지난 대화가 없습니다.";
        var current = getConversationId();
        items.forEach(function (c) {
          var li = el("li", "item history__item" + (c.conversation_id === current ? " item--current" : ""));
          li.tabIndex = 0;
          li.setAttribute("role", "button");
          li.setAttribute("data-conversation-id", c.conversation_id);
          li.appendChild(el("p", "item__title", c.first_line || "(내용 없음)"));
          li.appendChild(
            el("p", "item__sub", formatDateTime(c.updated_at) + " · 메시지 " + (c.message_count || 0) + "개" + (c.conversation_id === current ? " · 지금 대화" : ""))
          );
          var open = function () {
            if (state.busy) return;
            setConversationId(c.conversation_id);
            show(ui.historyPanel, false);
            ui.historyButton.setAttribute("aria-expanded", "false");
            restoreConversation();
          };
          li.addEventListener("click", open);
          li.addEventListener("keydown", function (event) {
            if (event.key === "Enter" || event.key === " ") {
              event.preventDefault();
              open();
            }
          });
          ui.historyList.appendChild(li);
        });
      })
      .catch(function (err) {
        if (err.kind === "auth") return handleUnauthorized();
        ui.historyStatus.textContent = "지난 대화를 불러오지 못했습니다. " + err.message;
      });
  }

  function refreshSidebar() {
    if (!getToken()) return Promise.resolve();
    var seq = ++state.sidebarSeq;
    ui.refreshButton.disabled = true;
    if (!ui.ordersList.firstChild) ui.ordersStatus.textContent = "불러오는 중…";
    if (!ui.requestsList.firstChild) ui.requestsStatus.textContent = "불러오는 중…";

    var orders = api("GET", API.orders).then(
      function (data) {
        if (seq === state.sidebarSeq) renderOrders(listFrom(data, "orders"));
      },
      function (err) {
        if (err.kind === "auth") throw err;
        if (seq === state.sidebarSeq) ui.ordersStatus.textContent = "주문을 불러오지 못했습니다. " + err.message;
      }
    );
    var requests = api("GET", API.requests).then(
      function (data) {
        if (seq === state.sidebarSeq) renderRequests(data);
      },
      function (err) {
        if (err.kind === "auth") throw err;
        if (seq === state.sidebarSeq) ui.requestsStatus.textContent = "요청을 불러오지 못했습니다. " + err.message;
      }
    );
    return Promise.all([orders, requests])
      .catch(function (err) {
        if (err && err.kind === "auth") handleUnauthorized();
      })
      .finally(function () {
        if (seq === state.sidebarSeq) ui.refreshButton.disabled = false;
      });
  }

  // --- 대화 ---------------------------------------------------------------------------------
  var cardOptions = {
    onOpenTicket: function (ticketId) {
      openTicket(ticketId);
    },
  };

  function removeEmptyState() {
    var empty = ui.messageList.querySelector(".chat__empty");
    if (empty) empty.remove();
  }

  function renderEmptyState() {
    clear(ui.messageList);
    var box = el("div", "chat__empty");
    box.appendChild(el("p", "chat__empty-title", "무엇을 도와드릴까요?"));
    box.appendChild(
      el(
        "p",
        "chat__empty-text",
        "AI 상담원이 먼저 답변하고, 원하시면 사람 상담원에게 연결해 드립니다. " +
          "주문 조회, 배송지 변경, 교환 접수, 환불·취소 요청을 도와드리며 환불과 취소는 담당자 승인 후 처리됩니다."
      )
    );
    ui.messageList.appendChild(box);
  }

  function scrollToBottom() {
    ui.messageList.scrollTop = ui.messageList.scrollHeight;
  }

  // What the log already shows, so a later fetch adds only what is new.
  function remember(message) {
    state.seen[D.messageKey(message)] = true;
    if (message.id !== undefined && message.id !== null) {
      var n = Number(message.id);
      if (!isNaN(n) && (state.lastMessageId === null || n > state.lastMessageId)) state.lastMessageId = n;
    }
  }

  function appendMessage(message) {
    removeEmptyState();
    var node = D.renderMessage(message, cardOptions);
    ui.messageList.appendChild(node);
    scrollToBottom();
    return node;
  }

  /*
   * Messages that arrived while the page was open: a person's answer (operator) or an outcome (system). The
   * customer's own turns and the agent's replies are drawn by the turn that sent them, so here they are only
   * remembered; a message is drawn once, whether the server numbers messages yet or not.
   */
  function syncConversation() {
    var id = getConversationId();
    if (!id || state.restoring) return Promise.resolve();
    var path = API.conversation(id) + (state.lastMessageId !== null ? "?after=" + encodeURIComponent(state.lastMessageId) : "");
    return api("GET", path)
      .then(function (data) {
        if (getConversationId() !== id) return;
        var messages = data && Array.isArray(data.messages) ? data.messages : [];
        messages.forEach(function (m) {
          var key = D.messageKey(m);
          if (state.seen[key]) return;
          if (m.role === "operator" || m.role === "system") appendMessage(m);
          remember(m);
        });
      })
      .catch(function (err) {
        if (err.kind === "auth") handleUnauthorized();
      });
  }

  function appendTyping() {
    removeEmptyState();
    var wrap = D.renderTyping();
    ui.messageList.appendChild(wrap);
    scrollToBottom();
    return wrap;
  }

  function markFailed(node) {
    node.classList.add("msg--failed");
    node.appendChild(el("div", "msg__failed", "전송 실패"));
  }

  function renderQuickReplies(results) {
    D.renderChips(
      ui.quickReplies,
      results,
      function (choice) {
        sendMessage(choice, { fromQuickReply: true });
      },
      state.busy
    );
  }

  function hideQuickReplies() {
    clear(ui.quickReplies);
    show(ui.quickReplies, false);
  }

  function setBusy(busy) {
    state.busy = busy;
    setButtonBusy(ui.sendButton, busy, "보내는 중…", "보내기");
    ui.newChatButton.disabled = busy;
    ui.messageList.setAttribute("aria-busy", busy ? "true" : "false");
    Array.prototype.forEach.call(ui.quickReplies.querySelectorAll("button"), function (b) {
      b.disabled = busy;
    });
  }

  function resetConversationView() {
    state.seen = {};
    state.lastMessageId = null;
    hideQuickReplies();
    showError(ui.chatError, "");
    renderEmptyState();
  }

  function restoreConversation() {
    var id = getConversationId();
    resetConversationView();
    if (!id) return;
    setBusy(true);
    state.restoring = true;
    var loading = el("p", "chat__loading", "이전 대화를 불러오는 중…");
    ui.messageList.appendChild(loading);
    api("GET", API.conversation(id))
      .then(function (data) {
        loading.remove();
        var messages = data && Array.isArray(data.messages) ? data.messages : [];
        if (!messages.length) return;
        clear(ui.messageList);
        messages.forEach(function (m) {
          appendMessage(m);
          remember(m);
        });
        var last = messages[messages.length - 1];
        if (last && last.role === "assistant") renderQuickReplies(last.tool_results);
      })
      .catch(function (err) {
        loading.remove();
        if (err.kind === "auth") return handleUnauthorized();
        if (err.status === 404 || err.status === 403) {
          clearConversationId();
          return;
        }
        showError(ui.chatError, "이전 대화를 불러오지 못했습니다. " + err.message);
      })
      .finally(function () {
        state.restoring = false;
        setBusy(false);
      });
  }

  function sendMessage(text, options) {
    options = options || {};
    text = (text || "").trim();
    if (!text || state.busy) return;
    if (text.length > MAX_MESSAGE) {
      showError(ui.chatError, MSG.tooLong);
      return;
    }

    showError(ui.chatError, "");
    hideQuickReplies();
    if (!options.fromQuickReply) {
      ui.messageInput.value = "";
      updateCounter();
    }
    setBusy(true);

    var sentNode = appendMessage({ role: "customer", content: text, created_at: new Date().toISOString() });
    var typing = appendTyping();
    var conversationId = getConversationId();
    var payload = { message: text };
    if (conversationId) payload.conversation_id = conversationId;

    api("POST", API.chat, payload, { timeoutMs: CHAT_TIMEOUT_MS })
      .then(function (data) {
        typing.remove();
        data = data || {};
        if (data.conversation_id !== undefined && data.conversation_id !== null) setConversationId(data.conversation_id);
        var results = Array.isArray(data.tool_results) ? data.tool_results : [];
        appendMessage({
          role: "assistant",
          content: data.reply || "",
          tool_results: results,
          created_at: new Date().toISOString(),
        });
        renderQuickReplies(results);
      })
      .catch(function (err) {
        typing.remove();
        markFailed(sentNode);
        if (!(err instanceof ApiError)) err = new ApiError("http", 0, MSG.server, null);
        if (err.kind === "auth") return handleUnauthorized();
        var message = err.message;
        if (conversationId && (err.status === 404 || err.status === 403)) {
          clearConversationId();
          message = MSG.lostConversation;
        }
        showError(ui.chatError, message);
        // 입력한 내용을 잃지 않도록 되돌려 놓는다.
        if (!options.fromQuickReply && !ui.messageInput.value) {
          ui.messageInput.value = text;
          updateCounter();
        }
      })
      .finally(function () {
        setBusy(false);
        if (getToken()) {
          refreshSidebar();
          ui.messageInput.focus();
        }
      });
  }

  function onNewChat() {
    if (state.busy) return;
    clearConversationId();
    resetConversationView();
    ui.messageInput.focus();
  }

  // --- 입력창 --------------------------------------------------------------------------------
  function updateCounter() {
    var length = ui.messageInput.value.length;
    ui.messageCounter.textContent = length.toLocaleString("ko-KR") + " / " + MAX_MESSAGE.toLocaleString("ko-KR");
    ui.messageCounter.classList.toggle("composer__counter--warn", length > MAX_MESSAGE * 0.95);
    autoGrow();
  }

  function autoGrow() {
    var input = ui.messageInput;
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 240) + "px";
  }

  function onComposerKeydown(event) {
    if (event.key !== "Enter" || event.shiftKey) return;
    // 한글 조합 중의 Enter는 글자 확정용이므로 전송하지 않는다.
    if (event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    sendMessage(ui.messageInput.value);
  }

  function onChatSubmit(event) {
    event.preventDefault();
    sendMessage(ui.messageInput.value);
  }

  // --- 시작 ---------------------------------------------------------------------------------
  function init() {
    cacheElements();
    thread = D.ticketThread(ui.ticketView, api, "ticket-rating-form");
    var linked = new URLSearchParams(window.location.search).get("ticket");
    if (linked && /^T?\d{1,12}$/.test(linked)) state.linkedTicket = linked;
    if (linked) window.history.replaceState(null, "", window.location.pathname);
    ui.loginForm.addEventListener("submit", onLoginSubmit);
    ui.logoutButton.addEventListener("click", onLogout);
    ui.refreshButton.addEventListener("click", function () {
      refreshSidebar();
    });
    ui.newChatButton.addEventListener("click", onNewChat);
    ui.historyButton.addEventListener("click", toggleHistory);
    ui.inboxButton.addEventListener("click", function () {
      var heading = document.getElementById("requests-heading");
      heading.scrollIntoView({ block: "start" });
      var first =
        ui.requestsList.querySelector(".item--unread .item__open") || ui.requestsList.querySelector(".item--ticket .item__open");
      if (first) first.focus();
    });
    ui.ticketClose.addEventListener("click", closeTicket);
    ui.noticesToggle.addEventListener("change", onNoticesChange);
    ui.ticketForm.addEventListener("submit", onTicketSubmit);
    ui.ticketView.addEventListener("click", function (event) {
      if (event.target === ui.ticketView) closeTicket();
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && !ui.ticketView.hidden) closeTicket();
    });
    ui.chatForm.addEventListener("submit", onChatSubmit);
    ui.messageInput.addEventListener("keydown", onComposerKeydown);
    ui.messageInput.addEventListener("input", updateCounter);
    updateCounter();

    if (getToken()) {
      showApp();
    } else {
      resetConversationView();
      showLogin("");
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

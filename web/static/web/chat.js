/*
 * 고객 채팅 화면. 빌드 단계 없는 순수 JavaScript.
 * 서버에서 온 문자열은 모두 textContent로만 넣는다 (HTML 문자열로 조립하지 않는다).
 */
(function () {
  "use strict";

  var API = {
    token: "/api/auth/token/",
    logout: "/api/auth/logout/",
    orders: "/api/orders/",
    requests: "/api/requests/",
    chat: "/api/chat/",
    conversation: function (id) {
      return "/api/chat/" + encodeURIComponent(id) + "/";
    },
    tickets: "/api/tickets/",
    ticket: function (id) {
      return "/api/tickets/" + encodeURIComponent(id) + "/";
    },
    ticketMessages: function (id) {
      return "/api/tickets/" + encodeURIComponent(id) + "/messages/";
    },
  };
  // 새 상담원 답변을 확인하는 주기 (테스트는 window.CSDESK_POLL_MS로 줄인다).
  var POLL_MS = Number(window.CSDESK_POLL_MS) || 15000;

  var KEYS = {
    token: "csdesk.token",
    username: "csdesk.username",
    displayName: "csdesk.displayName",
    // 대화 번호는 사용자별로 보관한다: 다른 계정으로 로그인하면 남의 대화를 복원하려 하지 않는다.
    conversation: function (username) {
      return "csdesk.conversation." + (username || "_");
    },
  };

  var MAX_MESSAGE = 4000;
  var CHAT_TIMEOUT_MS = 120000;
  var API_TIMEOUT_MS = 20000;

  var TOOL_LABELS = {
    change_shipping_address: "배송지 변경",
    request_exchange: "교환 접수",
    request_refund: "환불·취소 요청",
    create_ticket: "상담원 티켓",
    get_my_orders: "주문 조회",
    get_my_requests: "요청 조회",
  };

  var STATUS_LABELS = {
    DONE: "완료",
    PENDING: "승인대기",
    APPROVED: "승인완료",
    REJECTED: "반려",
    OPEN: "접수",
    ANSWERED: "답변완료",
    CLOSED: "종료",
    PAID: "결제완료",
    PREPARING: "배송준비",
    SHIPPING: "배송중",
    DELIVERED: "배송완료",
    CANCELLED: "취소완료",
    RETURNED: "반품완료",
  };

  var STATUS_TONES = {
    DONE: "green",
    APPROVED: "green",
    PENDING: "amber",
    REJECTED: "red",
    OPEN: "blue",
    ANSWERED: "green",
    CLOSED: "gray",
    PAID: "blue",
    PREPARING: "blue",
    SHIPPING: "blue",
    DELIVERED: "green",
    CANCELLED: "gray",
    RETURNED: "gray",
  };

  var CODE_BY_LABEL = {};
  Object.keys(STATUS_LABELS).forEach(function (code) {
    CODE_BY_LABEL[STATUS_LABELS[code]] = code;
  });

  var CLARIFY_CHOICES = ["단순변심", "상품하자", "오배송"];

  var FIELD_LABELS = {
    message: "메시지",
    conversation_id: "대화 번호",
    username: "아이디",
    password: "비밀번호",
  };

  var MSG = {
    badLogin: "아이디 또는 비밀번호가 올바르지 않습니다.",
    emptyLogin: "아이디와 비밀번호를 모두 입력해 주세요.",
    expired: "로그인이 만료되었습니다. 다시 로그인해 주세요.",
    throttled: "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.",
    network: "네트워크에 연결할 수 없습니다. 연결 상태를 확인한 뒤 다시 시도해 주세요.",
    timeout: "응답이 지연되고 있습니다. 잠시 후 다시 시도해 주세요.",
    server: "일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.",
    badRequest: "요청을 처리할 수 없습니다. 입력 내용을 확인해 주세요.",
    tooLong: "메시지는 " + MAX_MESSAGE.toLocaleString("ko-KR") + "자까지 입력할 수 있습니다.",
    lostConversation: "이전 대화를 찾을 수 없어 새 대화를 시작합니다. 메시지를 다시 보내 주세요.",
    refusedDefault: "요청을 처리하지 못했습니다.",
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

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function show(node, visible) {
    node.hidden = !visible;
  }

  function badge(code, label) {
    var tone = STATUS_TONES[code] || "gray";
    var node = el("span", "badge badge--" + tone, label || STATUS_LABELS[code] || code || "");
    return node;
  }

  function formatDateTime(value) {
    if (!value) return "";
    var d = new Date(value);
    if (isNaN(d.getTime())) return String(value);
    return d.toLocaleString("ko-KR", {
      timeZone: "Asia/Seoul",
      month: "numeric",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
    });
  }

  function formatDate(value) {
    if (!value) return "";
    var d = new Date(value);
    if (isNaN(d.getTime())) return String(value);
    return d.toLocaleDateString("ko-KR", { timeZone: "Asia/Seoul", year: "numeric", month: "2-digit", day: "2-digit" });
  }

  function formatWon(value) {
    var n = Number(value);
    if (value === null || value === undefined || value === "" || isNaN(n)) return "";
    return n.toLocaleString("ko-KR", { maximumFractionDigits: 0 }) + "원";
  }

  // 번호는 "A00001" 문자열이거나 정수 id일 수 있다.
  function formatNumber(prefix, value) {
    if (value === null || value === undefined || value === "") return "";
    var text = String(value);
    if (/^\d+$/.test(text)) {
      while (text.length < 5) text = "0" + text;
      return prefix + text;
    }
    return text;
  }

  // --- API -------------------------------------------------------------------------------
  function ApiError(kind, status, message, body) {
    this.name = "ApiError";
    this.kind = kind; // "auth" | "throttled" | "bad_request" | "http" | "network" | "timeout"
    this.status = status;
    this.message = message;
    this.body = body;
  }
  ApiError.prototype = Object.create(Error.prototype);
  ApiError.prototype.constructor = ApiError;

  function collectErrors(value, prefix, out) {
    if (value === null || value === undefined) return out;
    if (typeof value === "string") {
      out.push(prefix ? prefix + ": " + value : value);
    } else if (Array.isArray(value)) {
      value.forEach(function (item) {
        collectErrors(item, prefix, out);
      });
    } else if (typeof value === "object") {
      Object.keys(value).forEach(function (key) {
        if (key === "code") return;
        var label = key === "detail" || key === "non_field_errors" ? prefix : FIELD_LABELS[key] || key;
        collectErrors(value[key], label, out);
      });
    }
    return out;
  }

  function errorMessage(body, fallback) {
    if (body && typeof body === "object" && typeof body.detail === "string") return body.detail;
    var lines = collectErrors(body, "", []);
    return lines.length ? lines.join("\n") : fallback;
  }

  function api(method, path, body, options) {
    options = options || {};
    var headers = { Accept: "application/json" };
    var token = options.anonymous ? null : getToken();
    if (token) headers.Authorization = "Token " + token;
    var init = {
      method: method,
      headers: headers,
      // 토큰만으로 인증한다. 관리자 화면 세션 쿠키가 섞여 CSRF 검사가 걸리지 않게 쿠키를 보내지 않는다.
      credentials: "omit",
      cache: "no-store",
    };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }

    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timer = null;
    if (controller) {
      init.signal = controller.signal;
      timer = window.setTimeout(function () {
        controller.abort();
      }, options.timeoutMs || API_TIMEOUT_MS);
    }

    return fetch(path, init)
      .then(
        function (response) {
          return response.text().then(function (text) {
            var data = null;
            if (text) {
              try {
                data = JSON.parse(text);
              } catch (e) {
                data = null;
              }
            }
            if (response.ok) return data;

            var status = response.status;
            if (status === 401) throw new ApiError("auth", status, MSG.expired, data);
            if (status === 429) {
              // The server's Korean detail says which limit (the per-minute throttle, or the day's budget).
              var retry = parseInt(response.headers.get("Retry-After") || "", 10);
              var msg = MSG.throttled;
              if (data && typeof data.detail === "string" && data.detail) msg = data.detail;
              else if (retry > 0) msg = "요청이 너무 많습니다. " + retry + "초 후 다시 시도해 주세요.";
              throw new ApiError("throttled", status, msg, data);
            }
            if (status === 400) throw new ApiError("bad_request", status, errorMessage(data, MSG.badRequest), data);
            if (status >= 500) throw new ApiError("http", status, MSG.server, data);
            throw new ApiError("http", status, errorMessage(data, MSG.server), data);
          });
        },
        function (err) {
          if (err && err.name === "AbortError") throw new ApiError("timeout", 0, MSG.timeout, null);
          throw new ApiError("network", 0, MSG.network, null);
        }
      )
      .finally(function () {
        if (timer) window.clearTimeout(timer);
      });
  }

  function listFrom(data, key) {
    if (Array.isArray(data)) return data;
    if (data && key && Array.isArray(data[key])) return data[key];
    if (data && Array.isArray(data.results)) return data.results;
    return [];
  }

  // --- 화면 요소 ----------------------------------------------------------------------------
  var ui = {};
  var state = { busy: false, sidebarSeq: 0 };

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
      "history-button",
      "history-panel",
      "history-status",
      "history-list",
      "ticket-view",
      "ticket-title",
      "ticket-sub",
      "ticket-close",
      "ticket-messages",
      "ticket-error",
      "ticket-closed-note",
      "ticket-form",
      "ticket-input",
      "ticket-send",
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
    startPolling();
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
      var unread = Number(t.unread) || 0;
      unreadTotal += unread;
      var li = el("li", "item item--ticket" + (unread ? " item--unread" : ""));
      li.tabIndex = 0;
      li.setAttribute("role", "button");
      li.setAttribute("data-ticket-id", t.ticket_id);
      li.setAttribute("aria-label", "문의 " + formatNumber("T", t.ticket_id) + " 열기" + (unread ? ", 새 답변 " + unread + "건" : ""));
      li.addEventListener("click", function () {
        openTicket(t.ticket_id);
      });
      li.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          openTicket(t.ticket_id);
        }
      });
      var head = el("div", "item__head");
      head.appendChild(el("span", "item__id", formatNumber("T", t.ticket_id)));
      var badges = el("span", "item__badges");
      if (unread) badges.appendChild(el("span", "count-badge ticket-unread", "새 답변 " + unread));
      badges.appendChild(badge(t.status, t.status_display));
      head.appendChild(badges);
      li.appendChild(head);
      li.appendChild(el("p", "item__title", "상담원 티켓 · " + (t.category_display || t.category || "기타")));
      if (t.subject) li.appendChild(el("p", "item__meta", t.subject));
      if (t.created_at) li.appendChild(el("p", "item__sub", formatDateTime(t.created_at)));
      ui.requestsList.appendChild(li);
    });
    setInboxBadge(unreadTotal);
  }

  function setInboxBadge(count) {
    ui.inboxBadge.textContent = count ? String(count) : "";
    show(ui.inboxBadge, count > 0);
  }

  // --- 내 문의 스레드 -------------------------------------------------------------------------
  function renderThread(ticket) {
    state.ticketId = ticket.ticket_id;
    ui.ticketTitle.textContent = "문의 " + formatNumber("T", ticket.ticket_id) + " · " + (ticket.subject || "");
    clear(ui.ticketSub);
    ui.ticketSub.appendChild(badge(ticket.status, ticket.status_display));
    ui.ticketSub.appendChild(document.createTextNode(" " + (ticket.category_display || "") + " · " + formatDateTime(ticket.created_at)));
    clear(ui.ticketMessages);
    var messages = Array.isArray(ticket.messages) ? ticket.messages : [];
    messages.forEach(function (m) {
      var mine = m.author_type === "CUSTOMER";
      var wrap = el("div", "msg " + (mine ? "msg--customer" : "msg--assistant msg--operator"));
      var meta = el("div", "msg__meta");
      meta.appendChild(el("span", "msg__who", mine ? "나" : m.author_display || "상담원"));
      if (m.created_at) {
        var time = el("time", "msg__time", formatDateTime(m.created_at));
        time.setAttribute("datetime", String(m.created_at));
        meta.appendChild(time);
      }
      wrap.appendChild(meta);
      wrap.appendChild(el("div", "msg__bubble", m.body || ""));
      ui.ticketMessages.appendChild(wrap);
    });
    if (!messages.some(function (m) { return m.author_type === "OPERATOR"; })) {
      ui.ticketMessages.appendChild(el("p", "panel__status", "상담원이 확인하고 답변을 드릴 예정입니다."));
    }
    ui.ticketMessages.scrollTop = ui.ticketMessages.scrollHeight;
    var closed = ticket.status === "CLOSED";
    show(ui.ticketForm, !closed);
    show(ui.ticketClosedNote, closed);
  }

  function openTicket(id) {
    showError(ui.ticketError, "");
    show(ui.ticketView, true);
    ui.ticketTitle.textContent = "문의 " + formatNumber("T", id);
    clear(ui.ticketMessages);
    ui.ticketMessages.appendChild(el("p", "chat__loading", "불러오는 중…"));
    return api("GET", API.ticket(id))
      .then(function (data) {
        renderThread(data || {});
        ui.ticketClose.focus();
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

  function pollTickets() {
    if (!getToken() || document.hidden) return;
    api("GET", API.tickets)
      .then(function (tickets) {
        tickets = Array.isArray(tickets) ? tickets : [];
        var total = 0;
        var changed = false;
        tickets.forEach(function (t) {
          var unread = Number(t.unread) || 0;
          total += unread;
          var item = ui.requestsList.querySelector('[data-ticket-id="' + String(t.ticket_id).replace(/"/g, "") + '"]');
          var shown = item ? item.querySelector(".ticket-unread") : null;
          var shownCount = shown ? Number(shown.textContent.replace(/\D/g, "")) : 0;
          if (!item || shownCount !== unread) changed = true;
          if (unread && state.ticketId === t.ticket_id) openTicket(t.ticket_id); // 열어 둔 스레드는 바로 갱신
        });
        setInboxBadge(total);
        if (changed) refreshSidebar();
      })
      .catch(function (err) {
        if (err && err.kind === "auth") handleUnauthorized();
      });
  }

  function startPolling() {
    if (state.pollTimer) return;
    state.pollTimer = window.setInterval(pollTickets, POLL_MS);
  }

  function stopPolling() {
    if (state.pollTimer) window.clearInterval(state.pollTimer);
    state.pollTimer = null;
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
  function statusCodeOf(result) {
    var candidates = [result.status_code, result.status];
    for (var i = 0; i < candidates.length; i++) {
      if (candidates[i] && STATUS_TONES[candidates[i]]) return candidates[i];
    }
    // 상태가 한국어 라벨로만 온 경우
    return CODE_BY_LABEL[result.status_display] || CODE_BY_LABEL[result.status] || "";
  }

  function kindLabelOf(result) {
    if (result.kind_display) return result.kind_display;
    if (result.kind && /[^\x00-\x7F]/.test(result.kind)) return result.kind;
    return TOOL_LABELS[result.tool] || result.tool || "처리 결과";
  }

  function renderResultCard(result) {
    var isTicket = !result.action_id && result.ticket_id;
    var card = el("div", "result-card");
    card.setAttribute("role", "group");

    var head = el("div", "result-card__head");
    var number = isTicket ? formatNumber("T", result.ticket_id) : formatNumber("A", result.action_id);
    head.appendChild(el("span", "result-card__number", number));
    var code = statusCodeOf(result);
    var label = result.status_display || STATUS_LABELS[code] || result.status || "";
    if (label) head.appendChild(badge(code, label));
    card.appendChild(head);

    var kind = kindLabelOf(result);
    var title = kind;
    if (result.order_id) title += " · " + result.order_id;
    card.appendChild(el("p", "result-card__title", title));
    card.setAttribute("aria-label", kind + " " + number + " " + label);

    if (typeof result.message === "string" && result.message) {
      card.appendChild(el("p", "result-card__note", result.message));
    }
    if (code) card.classList.add("result-card--" + (STATUS_TONES[code] || "gray"));
    return card;
  }

  function renderRefusalCard(result) {
    var card = el("div", "result-card result-card--refused");
    card.setAttribute("role", "group");
    var head = el("div", "result-card__head");
    var title = result.needs_clarification ? "추가 확인이 필요합니다" : "처리하지 못했습니다";
    head.appendChild(el("span", "result-card__refused-title", title));
    if (result.tool && TOOL_LABELS[result.tool]) head.appendChild(el("span", "result-card__tool", TOOL_LABELS[result.tool]));
    card.appendChild(head);
    var reason = result.reason || MSG.refusedDefault;
    if (result.order_id) card.appendChild(el("p", "result-card__title", "주문 " + result.order_id));
    card.appendChild(el("p", "result-card__reason", reason));
    card.setAttribute("aria-label", title + ": " + reason);
    return card;
  }

  function renderToolResults(results) {
    if (!Array.isArray(results) || !results.length) return null;
    var box = el("div", "result-list");
    results.forEach(function (result) {
      if (!result || typeof result !== "object") return;
      if (result.action_id || result.ticket_id) {
        box.appendChild(renderResultCard(result));
      } else if (result.ok === false) {
        box.appendChild(renderRefusalCard(result));
      }
    });
    return box.childNodes.length ? box : null;
  }

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
        "주문 조회, 배송지 변경, 교환 접수, 환불·취소 요청, 상담원 연결을 도와드립니다. " +
          "환불과 취소는 담당자 승인 후 처리됩니다."
      )
    );
    ui.messageList.appendChild(box);
  }

  function scrollToBottom() {
    ui.messageList.scrollTop = ui.messageList.scrollHeight;
  }

  function appendMessage(message) {
    removeEmptyState();
    var isCustomer = message.role === "customer";
    var wrap = el("div", "msg " + (isCustomer ? "msg--customer" : "msg--assistant"));
    var meta = el("div", "msg__meta");
    meta.appendChild(el("span", "msg__who", isCustomer ? "나" : "AI 상담원"));
    if (message.created_at) {
      var time = el("time", "msg__time", formatDateTime(message.created_at));
      time.setAttribute("datetime", String(message.created_at));
      meta.appendChild(time);
    }
    wrap.appendChild(meta);
    wrap.appendChild(el("div", "msg__bubble", message.content || ""));
    if (!isCustomer) {
      var cards = renderToolResults(message.tool_results);
      if (cards) wrap.appendChild(cards);
    }
    ui.messageList.appendChild(wrap);
    scrollToBottom();
    return wrap;
  }

  function appendTyping() {
    removeEmptyState();
    var wrap = el("div", "msg msg--assistant msg--typing");
    var meta = el("div", "msg__meta");
    meta.appendChild(el("span", "msg__who", "AI 상담원"));
    wrap.appendChild(meta);
    var bubble = el("div", "msg__bubble");
    var spinner = el("span", "spinner spinner--dark");
    spinner.setAttribute("aria-hidden", "true");
    bubble.appendChild(spinner);
    bubble.appendChild(el("span", "msg__typing-text", "답변을 준비하고 있습니다…"));
    wrap.appendChild(bubble);
    ui.messageList.appendChild(wrap);
    scrollToBottom();
    return wrap;
  }

  function markFailed(node) {
    node.classList.add("msg--failed");
    node.appendChild(el("div", "msg__failed", "전송 실패"));
  }

  function clarificationChoices(results) {
    if (!Array.isArray(results)) return null;
    for (var i = 0; i < results.length; i++) {
      var r = results[i];
      if (r && r.needs_clarification === true) {
        var choices = Array.isArray(r.choices)
          ? r.choices.filter(function (c) {
              return typeof c === "string" && c.trim();
            })
          : [];
        return choices.length ? choices : CLARIFY_CHOICES;
      }
    }
    return null;
  }

  function renderQuickReplies(results) {
    clear(ui.quickReplies);
    var choices = clarificationChoices(results);
    if (!choices) {
      show(ui.quickReplies, false);
      return;
    }
    ui.quickReplies.appendChild(el("span", "quick-replies__label", "사유를 선택해 주세요"));
    choices.forEach(function (choice) {
      var button = el("button", "btn btn--chip", choice);
      button.type = "button";
      button.disabled = state.busy;
      button.addEventListener("click", function () {
        sendMessage(choice, { fromQuickReply: true });
      });
      ui.quickReplies.appendChild(button);
    });
    show(ui.quickReplies, true);
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
    hideQuickReplies();
    showError(ui.chatError, "");
    renderEmptyState();
  }

  function restoreConversation() {
    var id = getConversationId();
    resetConversationView();
    if (!id) return;
    setBusy(true);
    var loading = el("p", "chat__loading", "이전 대화를 불러오는 중…");
    ui.messageList.appendChild(loading);
    api("GET", API.conversation(id))
      .then(function (data) {
        loading.remove();
        var messages = data && Array.isArray(data.messages) ? data.messages : [];
        if (!messages.length) return;
        clear(ui.messageList);
        messages.forEach(appendMessage);
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
      var first = ui.requestsList.querySelector(".item--unread") || ui.requestsList.querySelector(".item--ticket");
      if (first) first.focus();
    });
    ui.ticketClose.addEventListener("click", closeTicket);
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

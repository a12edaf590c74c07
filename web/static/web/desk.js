/*
 * 고객 화면 공용 코드: 채팅 페이지(web/chat.js)와 쇼핑몰 위젯(integration frame.js)이 같은 것을 쓴다.
 * 메시지·처리 결과 카드·사유 칩·문의 스레드·평가 컨트롤을 그리고, API를 부르고, 변경 확인(/api/live/)을 돈다.
 * 서버에서 온 문자열은 모두 textContent로만 넣는다 (HTML 문자열로 조립하지 않는다).
 */
(function () {
  "use strict";

  // 도구 이름과 상태의 말은 서버가 보낸다 (처리 결과의 tool_label, status_display): 여기에는 색만 있다.
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

  var FIELD_LABELS = {
    message: "메시지",
    conversation_id: "대화 번호",
    username: "아이디",
    password: "비밀번호",
    score: "평가",
    comment: "의견",
  };

  var MSG = {
    expired: "로그인이 만료되었습니다. 다시 로그인해 주세요.",
    throttled: "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.",
    network: "네트워크에 연결할 수 없습니다. 연결 상태를 확인한 뒤 다시 시도해 주세요.",
    timeout: "응답이 지연되고 있습니다. 잠시 후 다시 시도해 주세요.",
    server: "일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.",
    badRequest: "요청을 처리할 수 없습니다. 입력 내용을 확인해 주세요.",
    refusedDefault: "요청을 처리하지 못했습니다.",
  };

  // 상담원에게 넘긴 뒤 답이 어디에 오는지: 고객이 기다리는 자리를 알려 준다.
  var ANSWER_WHERE = "상담원의 답변은 이 대화와 ‘내 문의’에 표시됩니다. 창을 닫아도 다시 열면 볼 수 있습니다.";
  var API_TIMEOUT_MS = 20000;

  // --- DOM ------------------------------------------------------------------------------------
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
    return el("span", "badge badge--" + tone, label || code || "");
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

  function onActivate(node, fn) {
    node.addEventListener("click", fn);
    node.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        fn(event);
      }
    });
  }

  // --- API ------------------------------------------------------------------------------------
  function ApiError(kind, status, message, body) {
    this.name = "ApiError";
    this.kind = kind; // "auth" | "throttled" | "bad_request" | "http" | "network" | "timeout"
    this.status = status;
    this.message = message;
    this.body = body;
    this.code = body && typeof body === "object" && typeof body.code === "string" ? body.code : "";
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

  /* options: token (string or null), timeoutMs. Resolves with the parsed body; rejects with ApiError. */
  function api(method, path, body, options) {
    options = options || {};
    var headers = { Accept: "application/json" };
    if (options.token) headers.Authorization = "Token " + options.token;
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

  // --- 변경 확인 -----------------------------------------------------------------------------------
  /*
   * The desk's one live mechanism (common/static/common/live.js does the same for the operator's lists): ask
   * /api/live/ with If-None-Match every couple of seconds while the page is visible; a 304 costs no query. When
   * the cursor moves, onChange(body) fetches what moved. Hidden pages do not ask; errors back off (max 60 s).
   * options: token() → string|null, onChange(body) → Promise|undefined, onAuth(), intervalMs.
   */
  function live(options) {
    var interval = Number(options.intervalMs) || Number(window.CSDESK_LIVE_MS) || 2000;
    var delay = interval;
    var etag = "";
    var timer = null;
    var busy = false;
    var running = false;

    function schedule(ms) {
      window.clearTimeout(timer);
      timer = window.setTimeout(tick, ms);
    }

    function tick() {
      timer = null;
      if (!running || busy || document.hidden) return;
      var token = options.token();
      if (!token) return;
      busy = true;
      var headers = { Accept: "application/json", Authorization: "Token " + token };
      if (etag) headers["If-None-Match"] = etag;
      var controller = typeof AbortController === "function" ? new AbortController() : null;
      var guard = controller
        ? window.setTimeout(function () {
            controller.abort();
          }, 15000)
        : null;
      fetch("/api/live/", {
        headers: headers,
        cache: "no-store",
        credentials: "omit",
        signal: controller ? controller.signal : undefined,
      })
        .then(function (response) {
          if (response.status === 304) return null;
          if (response.status === 401) {
            running = false;
            if (options.onAuth) options.onAuth();
            return null;
          }
          if (!response.ok) throw new Error("HTTP " + response.status);
          var next = response.headers.get("ETag") || "";
          return response.json().then(function (body) {
            // The first answer is where the page starts: it has just loaded what it shows.
            var change = etag ? options.onChange(body || {}) : null;
            return Promise.resolve(change).then(function () {
              etag = next; // 바뀐 것을 다 받은 뒤에만: 실패하면 다음에 다시 받는다
            });
          });
        })
        .then(function () {
          delay = interval;
        })
        .catch(function () {
          delay = Math.min(delay * 2, 60000);
        })
        .then(function () {
          if (guard) window.clearTimeout(guard);
          busy = false;
          if (running && !document.hidden) schedule(delay);
        });
    }

    document.addEventListener("visibilitychange", function () {
      if (!running) return;
      if (document.hidden) {
        window.clearTimeout(timer);
        timer = null;
      } else {
        delay = interval;
        schedule(0); // 돌아오면 바로 한 번
      }
    });
    window.addEventListener("online", function () {
      if (!running) return;
      delay = interval;
      schedule(0);
    });

    return {
      start: function () {
        if (running) return;
        running = true;
        etag = "";
        schedule(0);
      },
      stop: function () {
        running = false;
        window.clearTimeout(timer);
        timer = null;
      },
      now: function () {
        if (running) schedule(0);
      },
    };
  }

  // --- 처리 결과 카드 ------------------------------------------------------------------------------
  /* opts.onOpenTicket(ticketId): a ticket card opens its thread. */
  function renderResultCard(result, opts) {
    opts = opts || {};
    var isTicket = !result.action_id && result.ticket_id;
    var card = el("div", "result-card");
    card.setAttribute("role", "group");

    var head = el("div", "result-card__head");
    var number = isTicket ? formatNumber("T", result.ticket_id) : formatNumber("A", result.action_id);
    head.appendChild(el("span", "result-card__number", number));
    var code = result.status || "";
    var label = result.status_display || code;
    if (label) head.appendChild(badge(code, label));
    card.appendChild(head);

    var kind = result.tool_label || "처리 결과";
    card.appendChild(el("p", "result-card__title", kind));
    card.setAttribute("aria-label", kind + " " + number + " " + label);
    if (isTicket) {
      card.classList.add("result-card--ticket");
      card.setAttribute("data-ticket-id", result.ticket_id);
      card.appendChild(el("p", "result-card__where", opts.answerWhere || ANSWER_WHERE));
      if (opts.onOpenTicket) {
        var open = el("button", "btn btn--ghost btn--small result-card__open", "문의 " + number + " 보기");
        open.type = "button";
        open.addEventListener("click", function () {
          opts.onOpenTicket(result.ticket_id);
        });
        card.appendChild(open);
      }
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
    if (result.tool_label) head.appendChild(el("span", "result-card__tool", result.tool_label));
    card.appendChild(head);
    var reason = result.reason || MSG.refusedDefault;
    card.appendChild(el("p", "result-card__reason", reason));
    card.setAttribute("aria-label", title + ": " + reason);
    return card;
  }

  function renderToolResults(results, opts) {
    if (!Array.isArray(results) || !results.length) return null;
    var box = el("div", "result-list");
    results.forEach(function (result) {
      if (!result || typeof result !== "object") return;
      if (result.action_id || result.ticket_id) {
        box.appendChild(renderResultCard(result, opts));
      } else if (result.ok === false) {
        box.appendChild(renderRefusalCard(result));
      }
    });
    return box.childNodes.length ? box : null;
  }

  // --- 메시지 ---------------------------------------------------------------------------------
  function timeNode(value) {
    var time = el("time", "msg__time", formatDateTime(value));
    time.setAttribute("datetime", String(value));
    return time;
  }

  function operatorName(message) {
    var line = message.author_display || message.author || "";
    return line || "상담원";
  }

  /*
   * One line of a conversation. role: customer (나), assistant (AI 상담원), operator (상담원 <이름>: a person's
   * answer to a ticket opened from this conversation), system (an outcome such as 승인 or 환불완료, a centred
   * notice). opts as renderToolResults.
   */
  function renderMessage(message, opts) {
    var role = message.role;
    if (role === "system") {
      var note = el("div", "msg msg--system");
      note.setAttribute("role", "note");
      var line = el("p", "msg__notice", message.content || "");
      note.appendChild(line);
      if (message.created_at) note.appendChild(timeNode(message.created_at));
      var systemCards = renderToolResults(message.tool_results, opts);
      if (systemCards) note.appendChild(systemCards);
      if (message.id !== undefined && message.id !== null) note.setAttribute("data-message-id", message.id);
      return note;
    }
    var isCustomer = role === "customer";
    var kind = isCustomer ? "msg--customer" : role === "operator" ? "msg--assistant msg--operator" : "msg--assistant";
    var wrap = el("div", "msg " + kind);
    var meta = el("div", "msg__meta");
    var who = isCustomer ? "나" : role === "operator" ? operatorName(message) : "AI 상담원";
    meta.appendChild(el("span", "msg__who", who));
    if (message.created_at) meta.appendChild(timeNode(message.created_at));
    wrap.appendChild(meta);
    wrap.appendChild(el("div", "msg__bubble", message.content || ""));
    if (!isCustomer) {
      var cards = renderToolResults(message.tool_results, opts);
      if (cards) wrap.appendChild(cards);
    }
    if (message.id !== undefined && message.id !== null) wrap.setAttribute("data-message-id", message.id);
    if (message.ticket_id) wrap.setAttribute("data-ticket-id", message.ticket_id);
    return wrap;
  }

  // A message's identity across fetches: its id once the server gave one, else what it says and when.
  function messageKey(message) {
    if (message.id !== undefined && message.id !== null) return "id:" + message.id;
    return [message.role, message.created_at, message.content].join("|");
  }

  function renderTyping() {
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
    return wrap;
  }

  // --- 사유 칩 ---------------------------------------------------------------------------------
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
        return choices.length ? choices : null;
      }
    }
    return null;
  }

  /* Fills container with the reason chips the last answer asks for; returns whether there are any. */
  function renderChips(container, results, onChoose, disabled) {
    clear(container);
    var choices = clarificationChoices(results);
    if (!choices) {
      show(container, false);
      return false;
    }
    container.appendChild(el("span", "quick-replies__label", "사유를 선택해 주세요"));
    choices.forEach(function (choice) {
      var button = el("button", "btn btn--chip", choice);
      button.type = "button";
      button.disabled = Boolean(disabled);
      button.addEventListener("click", function () {
        onChoose(choice);
      });
      container.appendChild(button);
    });
    show(container, true);
    return true;
  }

  // --- 문의 ------------------------------------------------------------------------------------
  /* A row of 내 문의: a list item whose title is the button that opens the thread (the row takes clicks too). */
  function renderTicketItem(t, onOpen) {
    var unread = Number(t.unread) || 0;
    var li = el("li", "item item--ticket" + (unread ? " item--unread" : ""));
    li.setAttribute("data-ticket-id", t.ticket_id);
    li.addEventListener("click", function (event) {
      if (event.target.closest && event.target.closest("button")) return;
      onOpen(t.ticket_id);
    });
    var head = el("div", "item__head");
    head.appendChild(el("span", "item__id", formatNumber("T", t.ticket_id)));
    var badges = el("span", "item__badges");
    if (unread) badges.appendChild(el("span", "count-badge ticket-unread", "새 답변 " + unread));
    badges.appendChild(badge(t.status, t.status_display));
    head.appendChild(badges);
    li.appendChild(head);
    var open = el("button", "item__title item__open", "상담원 티켓 · " + (t.category_display || t.category || "기타"));
    open.type = "button";
    open.addEventListener("click", function () {
      onOpen(t.ticket_id);
    });
    li.appendChild(open);
    if (t.subject) li.appendChild(el("p", "item__meta", t.subject));
    if (t.created_at) li.appendChild(el("p", "item__sub", formatDateTime(t.created_at)));
    return li;
  }

  function renderThreadMessages(container, ticket) {
    clear(container);
    var messages = Array.isArray(ticket.messages) ? ticket.messages : [];
    messages.forEach(function (m) {
      var mine = m.author_type === "CUSTOMER";
      var wrap = el("div", "msg " + (mine ? "msg--customer" : "msg--assistant msg--operator"));
      var meta = el("div", "msg__meta");
      meta.appendChild(el("span", "msg__who", mine ? "나" : m.author_display || "상담원"));
      if (m.created_at) meta.appendChild(timeNode(m.created_at));
      wrap.appendChild(meta);
      wrap.appendChild(el("div", "msg__bubble", m.body || ""));
      container.appendChild(wrap);
    });
    if (
      !messages.some(function (m) {
        return m.author_type === "OPERATOR";
      })
    ) {
      container.appendChild(el("p", "panel__status", "상담원이 확인하고 답변을 드릴 예정입니다."));
    }
    container.scrollTop = container.scrollHeight;
  }

  function canRate(ticket) {
    if (ticket.rating !== undefined && ticket.rating !== null) return false;
    if (ticket.can_rate !== undefined) return Boolean(ticket.can_rate);
    return false;
  }

  var RATING_ERRORS = {
    already_rated: "이미 평가한 문의입니다.",
    not_answered: "상담원 답변을 받은 뒤에 평가할 수 있습니다.",
  };

  /*
   * The rating control of an answered or closed thread: 1–5 and an optional comment, sent once. Shows the
   * rating given when there is one; nothing while the ticket cannot be rated yet. submit(score, comment) → Promise.
   */
  // The thread's rating slot: emptied, then the control (or the given rating), hidden when there is neither.
  function fillRating(slot, ticket, submit, idPrefix) {
    clear(slot);
    var rating = renderRating(ticket, submit, idPrefix);
    if (rating) slot.appendChild(rating);
    show(slot, Boolean(rating));
  }

  function renderRating(ticket, submit, idPrefix) {
    var prefix = idPrefix || "rating";
    var box = el("div", "rating");
    box.id = prefix;
    var given = ticket.rating;
    if (given !== undefined && given !== null) {
      var score = typeof given === "object" ? given.score : given;
      box.appendChild(el("p", "rating__done", "평가해 주셔서 감사합니다. (" + score + "점 / 5점)"));
      return box;
    }
    if (!canRate(ticket)) return null;
    var form = el("form", "rating__form");
    form.noValidate = true;
    var fieldset = el("fieldset", "rating__scores");
    fieldset.appendChild(el("legend", "rating__legend", "상담원 답변은 어떠셨나요?"));
    var row = el("div", "rating__row");
    for (var n = 1; n <= 5; n++) {
      var label = el("label", "rating__choice");
      var input = el("input");
      input.type = "radio";
      input.name = prefix + "-score";
      input.value = String(n);
      input.id = prefix + "-score-" + n;
      label.appendChild(input);
      label.appendChild(el("span", "rating__star", n + "점"));
      row.appendChild(label);
    }
    fieldset.appendChild(row);
    fieldset.appendChild(el("p", "rating__hint", "1점 매우 불만족 · 5점 매우 만족"));
    form.appendChild(fieldset);
    var commentLabel = el("label", "rating__comment-label", "의견 (선택)");
    commentLabel.setAttribute("for", prefix + "-comment");
    var comment = el("textarea", "composer__input rating__comment");
    comment.id = prefix + "-comment";
    comment.rows = 2;
    comment.maxLength = 500;
    form.appendChild(commentLabel);
    form.appendChild(comment);
    var error = el("p", "notice notice--error rating__error");
    error.setAttribute("role", "alert");
    error.hidden = true;
    form.appendChild(error);
    var send = el("button", "btn btn--primary btn--small rating__send", "평가 보내기");
    send.type = "submit";
    send.id = prefix + "-send";
    form.appendChild(send);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var chosen = form.querySelector("input[type=radio]:checked");
      if (!chosen) {
        error.textContent = "1점부터 5점 중에서 골라 주세요.";
        error.hidden = false;
        return;
      }
      error.hidden = true;
      send.disabled = true;
      Promise.resolve(submit(Number(chosen.value), comment.value.trim()))
        .then(function (result) {
          clear(box);
          var score = result && result.score ? result.score : Number(chosen.value);
          box.appendChild(el("p", "rating__done", "평가해 주셔서 감사합니다. (" + score + "점 / 5점)"));
        })
        .catch(function (err) {
          send.disabled = false;
          error.textContent = (err && RATING_ERRORS[err.code]) || (err && err.message) || MSG.server;
          error.hidden = false;
        });
    });
    box.appendChild(form);
    return box;
  }

  /*
   * One ticket thread as the customer sees it (the chat page's dialog, the widget's thread view): title, status
   * line, messages, the rating slot, and the reply form or the closed note, each marked in the page's markup
   * with data-thread="title|sub|messages|rating|form|closed" inside container. request is the page's
   * signed-in api(method, path, body), used to send a rating. render(ticket) redraws only when the ticket
   * changed since it last drew it, so polling does not reset a half-typed rating comment or the reader's
   * scroll; forget() makes the next render draw again.
   */
  function ticketThread(container, request, idPrefix) {
    function part(name) {
      return container.querySelector('[data-thread="' + name + '"]');
    }
    var parts = {
      title: part("title"),
      sub: part("sub"),
      messages: part("messages"),
      rating: part("rating"),
      form: part("form"),
      closed: part("closed"),
    };
    var drawn = null;
    function signature(ticket) {
      var messages = Array.isArray(ticket.messages) ? ticket.messages : [];
      var last = messages[messages.length - 1] || {};
      return [ticket.ticket_id, ticket.status, messages.length, last.created_at, JSON.stringify(ticket.rating), ticket.can_rate].join("|");
    }
    function render(ticket) {
      var current = signature(ticket);
      if (drawn === current) return;
      drawn = current;
      parts.title.textContent = "문의 " + formatNumber("T", ticket.ticket_id) + " · " + (ticket.subject || "");
      clear(parts.sub);
      parts.sub.appendChild(badge(ticket.status, ticket.status_display));
      parts.sub.appendChild(document.createTextNode(" " + (ticket.category_display || "") + " · " + formatDateTime(ticket.created_at)));
      renderThreadMessages(parts.messages, ticket);
      fillRating(
        parts.rating,
        ticket,
        function (score, comment) {
          return request("POST", CUSTOMER_API.rating(ticket.ticket_id), { score: score, comment: comment }).then(function (data) {
            drawn = null;
            return data;
          });
        },
        idPrefix
      );
      var closed = ticket.status === "CLOSED";
      show(parts.form, !closed);
      show(parts.closed, closed);
    }
    return {
      render: render,
      forget: function () {
        drawn = null;
      },
    };
  }

  // The customer API the chat page and the widget both call; each adds its own sign-in (and the page its extras).
  var CUSTOMER_API = {
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
    rating: function (id) {
      return "/api/tickets/" + encodeURIComponent(id) + "/rating/";
    },
  };

  window.CSDesk = {
    CUSTOMER_API: CUSTOMER_API,
    STATUS_TONES: STATUS_TONES,
    MSG: MSG,
    ANSWER_WHERE: ANSWER_WHERE,
    el: el,
    clear: clear,
    show: show,
    badge: badge,
    onActivate: onActivate,
    formatDateTime: formatDateTime,
    formatDate: formatDate,
    formatWon: formatWon,
    formatNumber: formatNumber,
    ApiError: ApiError,
    errorMessage: errorMessage,
    api: api,
    listFrom: listFrom,
    live: live,
    renderToolResults: renderToolResults,
    renderMessage: renderMessage,
    messageKey: messageKey,
    renderTyping: renderTyping,
    renderChips: renderChips,
    renderTicketItem: renderTicketItem,
    ticketThread: ticketThread,
  };
})();

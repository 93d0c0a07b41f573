// Baton console (docs/console.md). Plain JavaScript, no dependencies. Every text that comes from the API is put
// into the page with textContent, never as HTML.
"use strict";

(() => {
  // The API lives on this origin, under the same path prefix as the page (an API Gateway stage, or none).
  const base = location.pathname.replace(/\/console\/?$/, "");
  const keyName = "baton.console.apiKey";
  const maxEvents = 200;
  const reconnectMs = 1000;

  const $ = (id) => document.getElementById(id);

  // el builds an element; string children become text nodes.
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("data-") || k.startsWith("aria-")) e.setAttribute(k, v);
      else e[k] = v;
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }

  const apiKey = () => sessionStorage.getItem(keyName);

  class APIError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  function headers(extra) {
    return Object.assign({ "Authorization": "Bearer " + apiKey(), "OpenAI-Beta": "agents=v1" }, extra || {});
  }

  // errorMessage reads the Agents API error body ({"error":{"message",…}}) of a failed response.
  async function errorMessage(res) {
    const text = await res.text();
    try {
      const body = JSON.parse(text);
      if (body && body.error && typeof body.error.message === "string") return body.error.message;
    } catch (_) { /* not JSON */ }
    return "HTTP " + res.status;
  }

  // api calls one Agents API route of this origin and returns its JSON body (null when empty).
  async function api(method, path, body) {
    const init = { method, headers: headers(), cache: "no-store", credentials: "omit" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(base + path, init);
    if (!res.ok) throw new APIError(res.status, await errorMessage(res));
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  }

  const enc = encodeURIComponent;
  const sessionPath = (id) => "/v1/agents/sessions/" + enc(id);

  // ---- login -------------------------------------------------------------------------------------------------

  async function login(key) {
    sessionStorage.setItem(keyName, key);
    try {
      await loadSessions();
    } catch (e) {
      sessionStorage.removeItem(keyName);
      throw e;
    }
    showApp();
  }

  function showLogin(message) {
    closeSession();
    $("app").hidden = true;
    $("logout").hidden = true;
    $("login").hidden = false;
    $("login-error").textContent = message || "";
    $("key").focus();
  }

  function showApp() {
    $("login").hidden = true;
    $("logout").hidden = false;
    $("app").hidden = false;
  }

  // ---- session list ------------------------------------------------------------------------------------------

  let selected = null; // the open Session's view (openSession)

  async function loadSessions() {
    const page = await api("GET", "/v1/agents/sessions?limit=100&order=desc");
    const sessions = (page && page.data) || [];
    sessions.sort((a, b) => (b.created_at - a.created_at) || (a.id < b.id ? 1 : -1)); // newest first
    const list = $("sessions");
    list.replaceChildren(...sessions.map((s) => {
      const b = el("button", { type: "button", "data-session-id": s.id },
        el("span", { class: "sid", text: s.id }),
        el("span", { class: "status", "data-status": s.status, text: s.status }), " ",
        el("span", { class: "muted", text: new Date(s.created_at * 1000).toLocaleString() }));
      if (selected && selected.id === s.id) b.classList.add("selected");
      b.addEventListener("click", () => openSession(s.id));
      return el("li", {}, b);
    }));
    if (sessions.length === 0) list.append(el("li", { class: "muted", text: "No Sessions yet." }));
    $("sessions-error").textContent = "";
  }

  async function refreshSessions() {
    try {
      await loadSessions();
    } catch (e) {
      if (e instanceof APIError && e.status === 401) return showLogin(e.message);
      $("sessions-error").textContent = e.message;
    }
  }

  // ---- one session -------------------------------------------------------------------------------------------

  // openSession shows one Session: its status, pending required actions, Items, and its live events. The stream
  // is opened first and the Session and Items are read once it is connected, so nothing committed in between is
  // missed (Items are deduplicated by id).
  function openSession(id) {
    closeSession();
    const view = { id, abort: new AbortController(), items: new Map(), submitted: new Set() };
    selected = view;
    for (const b of document.querySelectorAll("#sessions button")) {
      b.classList.toggle("selected", b.getAttribute("data-session-id") === id);
    }
    $("placeholder").hidden = true;
    $("session").hidden = false;
    $("session-id").textContent = id;
    $("session-error").textContent = "";
    setStatus("");
    $("actions").replaceChildren();
    $("no-actions").hidden = false;
    $("items").replaceChildren();
    $("events").replaceChildren();
    stream(view);
  }

  function closeSession() {
    if (selected) selected.abort.abort();
    selected = null;
    $("session").hidden = true;
    $("placeholder").hidden = false;
  }

  function setStatus(status) {
    const s = $("session-status");
    s.textContent = status;
    s.setAttribute("data-status", status);
  }

  async function refresh(view) {
    try {
      const s = await api("GET", sessionPath(view.id));
      if (selected !== view) return;
      renderSession(view, s);
      let after = null;
      for (;;) {
        const q = "?order=asc&limit=100" + (after ? "&after=" + enc(after) : "");
        const page = await api("GET", sessionPath(view.id) + "/items" + q);
        if (selected !== view) return;
        for (const it of page.data || []) upsertItem(view, it);
        if (!page.has_more || !page.last_id) break;
        after = page.last_id;
      }
    } catch (e) {
      if (selected !== view) return;
      if (e instanceof APIError && e.status === 401) return showLogin(e.message);
      $("session-error").textContent = e.message;
    }
  }

  function renderSession(view, s) {
    setStatus(s.status);
    $("session-error").textContent = s.error ? String(s.error) : "";
    renderActions(view, s.required_actions || []);
  }

  // renderActions shows each pending function call with Approve, Reject and a typed result.
  function renderActions(view, actions) {
    const list = $("actions");
    list.replaceChildren(...actions.map((a) => actionView(view, a)));
    $("no-actions").hidden = actions.length > 0;
  }

  function actionView(view, a) {
    const note = el("span", { class: "muted note" });
    const input = el("input", { class: "result", type: "text", placeholder: "Type a result", "aria-label": "Result for " + a.call_id });
    const approve = el("button", { class: "approve", type: "button", text: "Approve" });
    const reject = el("button", { class: "reject", type: "button", text: "Reject" });
    const submit = el("button", { class: "submit", type: "submit", text: "Submit result" });
    const form = el("form", { class: "controls" }, approve, reject, input, submit, note);
    const controls = [approve, reject, input, submit];

    const send = async (result) => {
      controls.forEach((c) => { c.disabled = true; });
      note.textContent = "Sending…";
      note.classList.remove("error");
      const event = Object.assign({ type: "agent.session.input.tool_result", turn_id: a.turn_id, call_id: a.call_id }, result);
      try {
        await api("POST", sessionPath(view.id) + "/events", { events: [event] });
        view.submitted.add(a.call_id);
        note.textContent = "Submitted.";
      } catch (e) {
        if (e instanceof APIError && e.status === 401) return showLogin(e.message);
        note.textContent = e.message;
        note.classList.add("error");
        controls.forEach((c) => { c.disabled = false; });
      }
    };
    approve.addEventListener("click", () => send({ success: true, output: JSON.stringify({ approved: true }) }));
    reject.addEventListener("click", () => send({ success: false, error: "rejected by the operator" }));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      send({ success: true, output: input.value });
    });
    if (view.submitted.has(a.call_id)) {
      controls.forEach((c) => { c.disabled = true; });
      note.textContent = "Submitted.";
    }

    return el("li", { class: "action", "data-call-id": a.call_id },
      el("div", {}, el("span", { class: "kind", text: a.name }), el("span", { class: "muted", text: "call " + a.call_id + " · turn " + a.turn_id })),
      el("pre", { class: "arguments", text: pretty(a.arguments) }),
      form);
  }

  function pretty(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "string") return v;
    return JSON.stringify(v, null, 2);
  }

  // outputText renders a tool output: a string, or ordered input_text / input_image parts.
  function outputText(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "string") return v;
    if (Array.isArray(v)) {
      return v.map((p) => (p && p.type === "input_text" ? p.text : p && p.type === "input_image" ? "[image]" : pretty(p))).join("");
    }
    return pretty(v);
  }

  function upsertItem(view, it) {
    const prev = view.items.get(it.id);
    const node = itemView(it);
    if (prev) prev.node.replaceWith(node);
    else $("items").append(node);
    view.items.set(it.id, { item: it, node });
  }

  function itemView(it) {
    const head = el("div", {}, el("span", { class: "kind", text: it.type }), el("span", { class: "muted", text: [it.role, it.phase, it.status].filter(Boolean).join(" · ") }));
    const li = el("li", { class: "item", "data-item-id": it.id, "data-type": it.type }, head);
    switch (it.type) {
      case "message": {
        const text = (it.content || []).map((c) => (c.type === "input_image" ? "[image]" : c.text || "")).join("");
        li.append(el("pre", { class: "text", text }));
        break;
      }
      case "function_call":
        li.append(el("div", { text: it.name + " · call " + it.call_id }), el("pre", { class: "arguments", text: pretty(it.arguments) }));
        break;
      case "function_call_output":
        li.append(el("div", { text: "call " + it.call_id }));
        if (it.output !== null && it.output !== undefined) li.append(el("pre", { class: "output", text: outputText(it.output) }));
        if (it.error !== null && it.error !== undefined) li.append(el("pre", { class: "error", text: String(it.error) }));
        break;
      case "mcp_call":
        li.append(el("div", { text: it.server_label + " · " + it.name }), el("pre", { class: "arguments", text: pretty(it.arguments) }));
        if (it.output !== null && it.output !== undefined) li.append(el("pre", { class: "output", text: outputText(it.output) }));
        if (it.error !== null && it.error !== undefined) li.append(el("pre", { class: "error", text: pretty(it.error) }));
        break;
      case "command_execution":
        li.append(el("pre", { class: "command", text: "$ " + (it.command || it.name || "") + (it.cwd ? "   (in " + it.cwd + ")" : "") }));
        if (it.output) li.append(el("pre", { class: "output", text: outputText(it.output) }));
        if (it.exit_code !== null && it.exit_code !== undefined) li.append(el("div", { class: "muted", text: "exit code " + it.exit_code }));
        break;
      default:
        li.append(el("pre", { text: pretty(it) }));
    }
    return li;
  }

  // appendDelta adds streamed text to the assistant message it belongs to, before the message's item.done.
  function appendDelta(view, itemID, delta) {
    const cur = view.items.get(itemID);
    if (!cur) return;
    const it = cur.item;
    it.content = it.content && it.content.length ? it.content : [{ type: "output_text", text: "" }];
    it.content[it.content.length - 1].text = (it.content[it.content.length - 1].text || "") + delta;
    upsertItem(view, it);
  }

  function logEvent(ev, data) {
    const list = $("events");
    let summary = "";
    if (data) {
      if (data.session) summary = data.session.status;
      else if (data.turn) summary = data.turn.status;
      else if (data.item) summary = data.item.type + " " + (data.item.status || "");
      else if (typeof data.delta === "string") summary = JSON.stringify(data.delta);
      else if (data.error) summary = data.error.message || "";
    }
    list.append(el("li", { "data-type": ev.event }, el("span", { class: "kind", text: ev.event }), summary));
    while (list.childElementCount > maxEvents) list.firstElementChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  function handleEvent(view, ev) {
    let data = null;
    try {
      data = JSON.parse(ev.data);
    } catch (_) { /* keep the type */ }
    logEvent(ev, data);
    if (!data) return;
    if (data.session && data.type && data.type.startsWith("agent.session.") && !data.type.startsWith("agent.session.turn.")) {
      renderSession(view, data.session);
    }
    switch (data.type) {
      case "agent.session.turn.item.added":
      case "agent.session.turn.item.done":
        if (data.item) upsertItem(view, data.item);
        break;
      case "agent.session.turn.output_text.delta":
        appendDelta(view, data.item_id, data.delta || "");
        break;
      case "error":
        $("session-error").textContent = (data.error && data.error.message) || "stream error";
        break;
    }
  }

  // stream reads the Session's SSE stream with fetch (EventSource cannot send Authorization), parses the
  // event:/data:/id: lines, and reconnects with Last-Event-ID until the Session is closed in the page.
  async function stream(view) {
    const signal = view.abort.signal;
    let lastID = null;
    while (!signal.aborted) {
      try {
        const extra = { "Accept": "text/event-stream" };
        if (lastID) extra["Last-Event-ID"] = lastID;
        const res = await fetch(base + sessionPath(view.id) + "/events", { headers: headers(extra), signal, cache: "no-store", credentials: "omit" });
        if (!res.ok) {
          const msg = await errorMessage(res);
          if (res.status === 401) return showLogin(msg);
          $("session-error").textContent = msg;
          if (res.status === 404) return; // the Session is gone
          throw new Error(msg);
        }
        $("stream-state").textContent = "live";
        refresh(view);
        await readEvents(res.body, (ev) => {
          if (ev.id) lastID = ev.id;
          if (selected === view) handleEvent(view, ev);
        });
      } catch (e) {
        if (signal.aborted) return;
      }
      if (signal.aborted) return;
      $("stream-state").textContent = "reconnecting…";
      await new Promise((resolve) => {
        const t = setTimeout(resolve, reconnectMs);
        signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
      });
    }
  }

  // readEvents parses an SSE body (text/event-stream) and calls onEvent({event, data, id}) per dispatched event.
  async function readEvents(body, onEvent) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    let cur = { event: "", data: [], id: "" };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (cur.data.length) onEvent({ event: cur.event || "message", data: cur.data.join("\n"), id: cur.id });
          cur = { event: "", data: [], id: "" };
          continue;
        }
        if (line.startsWith(":")) continue; // comment (keep-alive)
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") cur.event = value;
        else if (field === "data") cur.data.push(value);
        else if (field === "id") cur.id = value;
      }
    }
  }

  // ---- wiring ------------------------------------------------------------------------------------------------

  document.addEventListener("DOMContentLoaded", () => {
    $("login-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const key = $("key").value.trim();
      $("login-error").textContent = "";
      $("login-submit").disabled = true;
      try {
        await login(key);
        $("key").value = "";
      } catch (e) {
        $("login-error").textContent = e.message;
      } finally {
        $("login-submit").disabled = false;
      }
    });
    $("logout").addEventListener("click", () => {
      sessionStorage.removeItem(keyName);
      showLogin("");
    });
    $("refresh").addEventListener("click", refreshSessions);

    if (apiKey()) {
      loadSessions().then(showApp, (e) => {
        sessionStorage.removeItem(keyName);
        showLogin(e.message);
      });
    } else {
      showLogin("");
    }
  });
})();

"use strict";
// The customer portal: the link's token, the tenant's theme, its endpoints and their secrets. The message log is in
// portal-log.js. Every string from the server goes into the page as text (textContent, attributes), never as markup.
const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "relaybox-portal-token";
const portal = { me: null, endpoints: [], eventTypes: [], editing: null };

// The link carries the token in its fragment (never sent to a server, so in no log or Referer). Keep it for this tab
// only and take it out of the address bar, so a copied address or a screenshot does not hand it on.
(function takeToken() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
})();

function expiredText() {
  const app = portal.me && portal.me.tenant && portal.me.tenant.name ? portal.me.tenant.name + "'s app" : "your app";
  return "This link has expired; open the portal again from " + app + ".";
}

async function api(method, path, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new Error("No portal link here: open the portal from your app.");
  const response = await fetch("/portal/api" + path, {
    method,
    headers: Object.assign({ "Authorization": "Bearer " + token },
                           body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (response.status === 401) throw new Error(expiredText());
  if (!response.ok) throw new Error(data.reason || ("The server answered " + response.status + "."));
  return data;
}

function say(text, isError) {
  $("message").textContent = text;
  $("message").className = isError ? "error" : "";
}

/** Runs an action of a button or form; its failure is shown, never lost in the console. */
function act(action) {
  return () => Promise.resolve().then(action).catch((e) => say(e.message, true));
}

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function button(parent, label, onClick, primary) {
  const b = element("button", primary ? "primary" : null, label);
  b.type = "button";
  b.addEventListener("click", act(onClick));
  parent.appendChild(b);
  return b;
}

function when(instant) {
  return instant ? instant.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC") : "";
}

function pause(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function applyTheme(theme) {
  const t = theme || {};
  const title = t.title || "Webhooks";
  $("title").textContent = title;
  document.title = title;
  // Only a colour: the value goes into a CSS variable, so anything else is ignored rather than parsed.
  if (t.accentColor && /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20})$/.test(t.accentColor)) {
    document.documentElement.style.setProperty("--accent", t.accentColor);
  }
  if (t.logoUrl && /^(https:|\/)/.test(t.logoUrl)) {
    $("logo").src = t.logoUrl;
    $("logo").alt = title;
    $("logo").hidden = false;
  }
}

function controlsText(e) {
  const c = e.controls || {};
  return [c.rateLimit ? c.rateLimit + " requests/s" : "no rate limit",
    c.maxInFlight ? "at most " + c.maxInFlight + " in flight" : ""].filter((x) => x).join(", ");
}

function renderEndpoint(e) {
  const box = element("div", "endpoint" + (e.enabled ? "" : " disabled"));
  box.dataset.id = e.id;
  box.dataset.name = e.name;
  const about = element("div");
  about.appendChild(element("div", "name", e.name));
  about.appendChild(element("div", "url", e.destination ? e.destination.summary + " at " + e.url : e.url));
  about.appendChild(element("div", "meta", "Event types: " + (e.eventTypes || []).join(", ")));
  about.appendChild(element("div", "meta", controlsText(e)));
  if (!e.enabled) about.appendChild(element("div", "meta", "Disabled" + (e.disabledReason ? ": " + e.disabledReason : "")));
  if (e.rotatingSecret) about.appendChild(element("div", "meta", "Secret rotating: the old one still signs for a while"));
  box.appendChild(about);
  const chart = element("div", "chart");
  chart.appendChild(element("span", "empty", "loading the last 24 hours…"));
  box.appendChild(chart);
  api("GET", "/endpoints/" + e.id + "/stats").then((stats) => {
    const figure = element("figure");
    const svg = relayboxChart(stats, { label: e.name, width: 240, height: 40, axis: true });
    figure.appendChild(svg);
    figure.appendChild(element("figcaption", null, svg.getAttribute("data-delivered") + " delivered, " +
        svg.getAttribute("data-failed") + " failed in the last 24 hours"));
    chart.replaceChildren(figure);
  }).catch((error) => chart.replaceChildren(element("span", "empty", "No chart: " + error.message)));
  const actions = element("div", "actions");
  button(actions, "Edit", () => openForm(e));
  button(actions, e.enabled ? "Disable" : "Enable", () => setEnabled(e, !e.enabled));
  button(actions, "Send test event", () => sendTest(e));
  button(actions, "Rotate secret", () => rotateSecret(e));
  button(actions, "Replay failures…", () => openRecover(e));
  button(actions, "Messages", () => showLogOf(e.id));
  box.appendChild(actions);
  return box;
}

async function loadEndpoints() {
  portal.endpoints = await api("GET", "/endpoints");
  $("endpoint-list").replaceChildren(...portal.endpoints.map(renderEndpoint));
  $("endpoints-empty").hidden = portal.endpoints.length > 0;
  const select = $("log-endpoint");
  const chosen = select.value;
  const options = portal.endpoints.map((e) => {
    const option = element("option", null, e.name);
    option.value = e.id;
    return option;
  });
  const all = element("option", null, "all endpoints");
  all.value = "";
  select.replaceChildren(all, ...options);
  select.value = portal.endpoints.some((e) => e.id === chosen) ? chosen : "";
}

function showSecret(endpoint) {
  $("secret-endpoint").textContent = endpoint.name;
  $("secret-value").value = endpoint.secret;
  $("secret").hidden = false;
  $("secret").scrollIntoView();
}

async function copySecret() {
  const input = $("secret-value");
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch (refused) {
    // Without clipboard permission (an iframe without it, an old browser): the selection and the copy command.
    input.focus();
    input.select();
    copied = document.execCommand("copy");
  }
  if (copied) say("Copied the signing secret to the clipboard.");
  else say("The browser refused the clipboard: the secret is selected, copy it with Ctrl+C.", true);
}

function typeBox(name, description, checked) {
  const label = element("label", "check");
  const box = element("input");
  box.type = "checkbox";
  box.value = name;
  box.checked = checked;
  label.appendChild(box);
  label.appendChild(document.createTextNode(" " + name + " "));
  if (description) label.appendChild(element("span", "type-description", "— " + description));
  return label;
}

function openForm(endpoint) {
  portal.editing = endpoint || null;
  const chosen = endpoint ? endpoint.eventTypes || [] : [];
  $("form-title").textContent = endpoint ? "Edit " + endpoint.name : "Add an endpoint";
  $("form-name-row").hidden = Boolean(endpoint);
  $("form-name").value = endpoint ? endpoint.name : "";
  $("form-url").value = endpoint ? endpoint.url : "";
  const c = (endpoint && endpoint.controls) || {};
  $("form-rate").value = c.rateLimit || "";
  $("form-inflight").value = c.maxInFlight || "";
  const names = portal.eventTypes.map((t) => t.name);
  const boxes = portal.eventTypes.map((t) => typeBox(t.name, t.description, chosen.includes(t.name)));
  // A pattern the endpoint has that the catalog does not list (order.*) stays choosable, so saving keeps it.
  chosen.filter((n) => n !== "*" && !names.includes(n)).forEach((n) => boxes.push(typeBox(n, "", true)));
  $("form-types").replaceChildren(...boxes);
  $("form-types-empty").hidden = boxes.length > 0;
  $("form-all-types").checked = !endpoint || chosen.includes("*") || boxes.length === 0;
  allTypesChanged();
  $("endpoint-form").hidden = false;
  (endpoint ? $("form-url") : $("form-name")).focus();
}

function allTypesChanged() {
  const all = $("form-all-types").checked;
  $("form-types").querySelectorAll("input").forEach((box) => { box.disabled = all; });
}

function number(id) {
  const value = $(id).value.trim();
  return value === "" ? null : Number(value);
}

async function saveForm() {
  const types = $("form-all-types").checked ? ["*"]
      : Array.from($("form-types").querySelectorAll("input:checked")).map((box) => box.value);
  if (types.length === 0) throw new Error("Choose at least one event type, or all of them.");
  const body = { url: $("form-url").value.trim(), eventTypes: types };
  const rate = number("form-rate");
  const inFlight = number("form-inflight");
  const editing = portal.editing;
  if (editing) {
    // 0 clears a limit; an empty field on a new endpoint is simply no limit.
    body.rateLimit = rate === null ? 0 : rate;
    body.maxInFlight = inFlight === null ? 0 : inFlight;
    await api("PATCH", "/endpoints/" + editing.id, body);
    say("Saved " + editing.name + ".");
  } else {
    body.name = $("form-name").value.trim();
    if (rate !== null) body.rateLimit = rate;
    if (inFlight !== null) body.maxInFlight = inFlight;
    const created = await api("POST", "/endpoints", body);
    say("Added " + created.name + ". Copy its signing secret now.");
    showSecret(created);
  }
  $("endpoint-form").hidden = true;
  await loadEndpoints();
}

async function setEnabled(endpoint, enabled) {
  if (!enabled && !confirm("Disable " + endpoint.name + "? Nothing is sent to it until you enable it again.")) return;
  await api("PATCH", "/endpoints/" + endpoint.id,
      enabled ? { enabled: true } : { enabled: false, disabledReason: "disabled in the portal" });
  say((enabled ? "Enabled " : "Disabled ") + endpoint.name + ".");
  await loadEndpoints();
}

async function rotateSecret(endpoint) {
  if (!confirm("Rotate the signing secret of " + endpoint.name + "? Requests are signed with the old and the new " +
      "secret for a while, so update your receiver to the new one soon.")) return;
  const rotated = await api("PATCH", "/endpoints/" + endpoint.id, { rotateSecret: true });
  say("Rotated the secret of " + endpoint.name + ". Copy the new one now.");
  showSecret(rotated);
  await loadEndpoints();
}

async function sendTest(endpoint) {
  const sent = await api("POST", "/endpoints/" + endpoint.id + "/test", {});
  say("Sent a test event to " + endpoint.name + " (webhook-id " + sent.outboxId + "); waiting for its answer…");
  const delivery = await watchOutbox(endpoint.id, sent.outboxId);
  if (delivery) {
    const answer = lastAnswer(delivery);
    say("Test event to " + endpoint.name + ": " + delivery.status + " after " + delivery.attempts + " attempt(s)" +
        (answer ? " (" + answer + ")" : "") + ".",
        delivery.status !== "DELIVERED");
  } else {
    say("The test event to " + endpoint.name + " is on its way; it shows in Messages once sent.");
  }
  await Promise.all([loadEndpoints(), loadLog()]);
}

async function start() {
  $("add-endpoint").addEventListener("click", act(() => openForm(null)));
  $("form").addEventListener("submit", (e) => {
    e.preventDefault();
    act(saveForm)();
  });
  $("form-cancel").addEventListener("click", () => { $("endpoint-form").hidden = true; });
  $("form-all-types").addEventListener("change", allTypesChanged);
  $("secret-copy").addEventListener("click", act(copySecret));
  $("secret-done").addEventListener("click", () => {
    $("secret-value").value = "";
    $("secret").hidden = true;
  });
  startLog();
  portal.me = await api("GET", "/me");
  // Offered once the link's token is known good: without one nothing could be added.
  $("add-endpoint").disabled = false;
  applyTheme(portal.me.theme);
  $("tenant-name").textContent = portal.me.tenant.name;
  const [types] = await Promise.all([api("GET", "/event-types"), loadEndpoints(), loadLog()]);
  portal.eventTypes = types;
}

// After every script of the page has loaded: the message log's functions are in portal-log.js.
document.addEventListener("DOMContentLoaded", () => start().catch((e) => say(e.message, true)));

"use strict";
const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
tokenInput.value = sessionStorage.getItem("relaybox-token") || "";

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: Object.assign({ "Authorization": "Bearer " + tokenInput.value },
                           body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(data.reason || ("HTTP " + response.status));
  }
  return data;
}

function say(text, isError) {
  $("message").textContent = text;
  $("message").className = isError ? "error" : "";
}

function cell(row, value, className) {
  const td = row.insertCell();
  td.textContent = value === null || value === undefined ? "" : String(value);
  if (className) td.className = className;
  return td;
}

function button(td, label, onClick) {
  const b = document.createElement("button");
  b.textContent = label;
  b.addEventListener("click", () => onClick().catch((e) => say(e.message, true)));
  td.appendChild(b);
  td.appendChild(document.createTextNode(" "));
}

function link(td, label, href, sameTab) {
  if (!href) return;
  const a = document.createElement("a");
  a.textContent = label;
  a.href = href;
  if (!sameTab) {
    a.target = "_blank";
    a.rel = "noopener";
  }
  td.appendChild(a);
}

// "History": Relaybox's own view of the workflow; beside it the Temporal UI's page, unless the server is embedded
// (then temporalUrl is that same history view, since no Temporal UI can attach to it).
function workflowLinks(td, workflowId, temporalUrl) {
  if (!workflowId) return;
  link(td, "History", "/admin/workflows/" + encodeURIComponent(workflowId), true);
  if (temporalUrl && !temporalUrl.startsWith("/admin/")) {
    td.appendChild(document.createTextNode(" "));
    link(td, "Temporal UI", temporalUrl);
  }
}

function fill(tbodyId, items, render) {
  const tbody = $(tbodyId);
  tbody.replaceChildren();
  if (items.length === 0) {
    const row = tbody.insertRow();
    const td = cell(row, "nothing here", "empty");
    td.colSpan = 8;
  }
  items.forEach((item) => render(tbody.insertRow(), item));
}

function when(instant) {
  return instant ? instant.replace("T", " ").replace(/\.\d+Z$/, "Z") : "";
}

function filter() {
  const f = {};
  ["source", "eventType", "peer", "aggregate"].forEach((k) => { const v = $("f-" + k).value.trim(); if (v) f[k] = v; });
  return f;
}

async function showDetail(title, path) {
  const data = await api("GET", path);
  $("detail").hidden = false;
  $("detail-title").textContent = title;
  $("detail-body").textContent = JSON.stringify(data, null, 2);
}

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function deadLetterNotes(container, deadLetters, reference) {
  deadLetters.filter((d) => d.reference === reference).forEach((d) => {
    container.classList.add("dead");
    container.appendChild(element("div", "note" + (d.matched ? " matched" : ""), "dead letter " + when(d.createdAt) + ": " +
        d.reason + (d.resolvedAt ? " — resolved " + when(d.resolvedAt) + " (" + d.resolution + ")" : " — open")));
  });
}

// The OpenTelemetry trace the event belongs to: search for it in the tracing backend.
function traceNote(li, traceId) {
  if (traceId) {
    li.appendChild(element("div", "note", "trace " + traceId));
  }
}

function inboundStep(e, story) {
  const li = element("li", "step inbound" + (e.matched ? " matched" : ""));
  li.dataset.id = e.id;
  const line = element("div", "line", when(e.receivedAt) + "  ← " + e.partner + " sent " + (e.eventType || "an event") +
      " (" + e.partnerEventId + ")");
  li.appendChild(line);
  li.appendChild(element("div", "note", "decision: " + e.summary));
  traceNote(li, e.traceId);
  link(li, "Temporal", e.temporalUrl);
  deadLetterNotes(li, story.deadLetters, e.id);
  payloadEditNotes(li, story, e.id);
  return li;
}

function outboundStep(o, story) {
  const li = element("li", "step outbound" + (o.matched ? " matched" : ""));
  li.dataset.id = o.id;
  li.appendChild(element("div", "line", when(o.createdAt) + "  → " + o.eventType + " (webhook-id " + o.id + ")"));
  li.appendChild(element("div", "note", o.summary));
  traceNote(li, o.traceId);
  link(li, "Temporal", o.temporalUrl);
  payloadEditNotes(li, story, o.id);
  o.deliveries.forEach((d) => {
    const box = element("div", "delivery" + (d.matched ? " matched" : ""));
    box.dataset.id = d.id;
    box.appendChild(element("div", null, "to " + d.endpoint + " (" + d.url + "): " + d.summary));
    const table = element("table");
    const head = table.createTHead().insertRow();
    ["#", "started", "status", "latency", "error"].forEach((h) => head.appendChild(element("th", null, h)));
    const body = table.createTBody();
    d.tries.forEach((t) => {
      const row = body.insertRow();
      cell(row, t.attempt); cell(row, when(t.startedAt)); cell(row, t.brokerConfirmed ? "confirmed" : t.statusCode);
      cell(row, t.latencyMs + " ms"); cell(row, [t.error, t.again].filter(Boolean).join("; "));
    });
    box.appendChild(table);
    deadLetterNotes(box, story.deadLetters, d.id);
    li.appendChild(box);
  });
  return li;
}

async function showStory(q) {
  // A search that fails must not leave the previous story on screen as if it were the answer.
  $("story").hidden = true;
  const story = await api("GET", "/admin/story?q=" + encodeURIComponent(q));
  $("story").hidden = false;
  $("story-title").textContent = "Story of " + (story.aggregate || "inbox event") + " (found by " + story.query + ")";
  $("story-entity").textContent = story.entity
      ? story.aggregate + " is " + story.entity.state + " (version " + story.entity.version + ", since " + when(story.entity.updatedAt) + ")"
      : (story.aggregate ? story.aggregate + " has no entity state" : "");
  const steps = story.inbox.map((e) => ({ at: e.receivedAt, node: inboundStep(e, story) }))
      .concat(story.outbox.map((o) => ({ at: o.createdAt, node: outboundStep(o, story) })));
  steps.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  $("story-steps").replaceChildren(...steps.map((s) => s.node));
  $("story").scrollIntoView();
}

async function load() {
  sessionStorage.setItem("relaybox-token", tokenInput.value);
  const overview = await api("GET", "/admin/overview");
  $("count-dead").textContent = overview.openDeadLetters;
  $("count-deferred").textContent = overview.deferredInbox;
  $("count-retrying").textContent = overview.retryingDeliveries;
  $("count-undispatched").textContent = overview.undispatchedOutbox;

  const endpoints = await api("GET", "/admin/endpoints");
  fill("endpoint-rows", endpoints, (row, e) => {
    const h = e.health || {};
    row.dataset.name = e.name;
    cell(row, e.name + (e.enabled ? "" : " (disabled: " + (e.disabledReason || "") + ")"), e.enabled ? "" : "disabled")
        .appendChild(element("div", "where", e.destination ? e.destination.summary + " at " + e.url : e.url));
    cell(row, h.circuit, "circuit-" + h.circuit);
    cell(row, h.successRateLastHour === null || h.successRateLastHour === undefined ? "no attempts"
        : Math.round(h.successRateLastHour * 1000) / 10 + "% of " + h.attemptsLastHour);
    cell(row, h.p50LatencyMs === null || h.p50LatencyMs === undefined ? "" : h.p50LatencyMs + " / " + h.p99LatencyMs + " ms");
    cell(row, when(h.lastSuccessAt));
    cell(row, h.consecutiveFailures);
    cell(row, when(h.nextProbeAt));
    cell(row, h.inFlight + " / " + h.waiting);
    const c = e.controls || {};
    cell(row, [c.rateLimit ? c.rateLimit + "/s (burst " + c.burst + ")" : "", c.maxInFlight ? "max " + c.maxInFlight + " in flight" : "",
        c.ordered ? "ordered" : "", c.payloadFormat].filter((x) => x).join(", "));
    const chart = cell(row, "", "chart");
    api("GET", "/admin/endpoints/" + e.id + "/stats")
        .then((stats) => chart.replaceChildren(relayboxChart(stats, { label: e.name })))
        .catch((error) => { chart.textContent = "no chart: " + error.message; });
  });

  const query = new URLSearchParams(filter()).toString();
  const deadLetters = await api("GET", "/admin/dead-letters?" + query);
  fill("dead-letter-rows", deadLetters.items, (row, d) => {
    row.dataset.id = d.id;
    cell(row, when(d.createdAt));
    cell(row, d.source === "OUTBOX" ? "outbound" : "inbound");
    cell(row, d.eventType);
    cell(row, d.peer);
    cell(row, d.tenant || "");
    cell(row, d.reason, "reason");
    cell(row, d.attempts);
    const actions = cell(row, "");
    button(actions, "Story", () => showStory(d.id));
    button(actions, "Details", () => showDetail("Dead letter " + d.id,
        d.source === "OUTBOX" ? "/admin/deliveries/" + d.reference : "/admin/inbox/" + d.reference));
    button(actions, "Replay", async () => {
      if (!confirm("Replay this " + d.eventType + " to " + d.peer + (d.tenant ? " (tenant " + d.tenant + ")" : "") +
          "? It goes through the normal path again.")) return;
      await api("POST", "/admin/dead-letters/" + d.id + "/replay", {});
      say("Replayed dead letter " + d.id + "; it goes through the normal path again.");
      await load();
    });
    button(actions, "Fix & replay", () => fixThenReplay(d));
    button(actions, "Discard", async () => {
      const reason = prompt("Why discard it?");
      if (!reason) return;
      await api("POST", "/admin/dead-letters/" + d.id + "/discard", { reason });
      say("Discarded dead letter " + d.id + ".");
      await load();
    });
    workflowLinks(actions, d.workflowId, d.temporalUrl);
  });

  const deferred = await api("GET", "/admin/inbox?status=deferred");
  fill("deferred-rows", deferred.items, (row, e) => {
    cell(row, when(e.receivedAt));
    cell(row, e.partner);
    cell(row, e.eventType);
    cell(row, e.aggregate);
    cell(row, e.deferReason, "reason");
    const actions = cell(row, "");
    button(actions, "Details", () => showDetail("Inbox event " + e.id, "/admin/inbox/" + e.id));
    button(actions, "Release", async () => {
      await api("POST", "/admin/inbox/" + e.id + "/release", {});
      say("Released " + e.eventType + " for " + e.aggregate + ".");
      await load();
    });
    workflowLinks(actions, e.workflowId, e.temporalUrl);
  });

  const retrying = await api("GET", "/admin/deliveries?status=retrying");
  fill("retrying-rows", retrying.items, (row, d) => {
    cell(row, when(d.createdAt));
    cell(row, d.eventType);
    cell(row, d.endpoint);
    cell(row, d.attempts);
    cell(row, d.lastError, "reason");
    cell(row, when(d.nextAttemptAt));
    const actions = cell(row, "");
    button(actions, "Details", () => showDetail("Delivery " + d.id, "/admin/deliveries/" + d.id));
    button(actions, "Retry now", async () => {
      await api("POST", "/admin/deliveries/" + d.id + "/retry-now", {});
      say("Retrying delivery " + d.id + " now.");
      await load();
    });
    workflowLinks(actions, d.workflowId, d.temporalUrl);
  });
}

$("connect").addEventListener("click", () => load().then(() => say("")).catch((e) => say(e.message, true)));
$("find-go").addEventListener("click", () => {
  sessionStorage.setItem("relaybox-token", tokenInput.value);
  showStory($("find-q").value.trim()).then(() => say("")).catch((e) => say(e.message, true));
});
$("filter").addEventListener("click", () => load().catch((e) => say(e.message, true)));
$("replay-all").addEventListener("click", async () => {
  try {
    const f = filter();
    const { open } = await api("GET", "/admin/dead-letters/count?" + new URLSearchParams(f));
    if (open === 0) {
      say("No open dead letters match.");
      return;
    }
    const what = Object.keys(f).length ? "matching this filter" : "(no filter: every open dead letter)";
    if (!confirm("Replay " + open + " dead letters " + what + "?" + (open > 1000 ? " They go in batches of 1,000." : ""))) {
      return;
    }
    const result = await api("POST", "/admin/dead-letters/replay", { filter: f, all: Object.keys(f).length === 0 });
    say("Replayed " + result.replayed + " dead letters" +
        (result.skippedDisabledEndpoint ? "; " + result.skippedDisabledEndpoint + " skipped (endpoint disabled)" : "") +
        (result.remaining ? "; " + result.remaining + " still open (replay again for the next batch)" : "") + ".");
    await load();
  } catch (e) {
    say(e.message, true);
  }
});
if (tokenInput.value) load().catch((e) => say(e.message, true));

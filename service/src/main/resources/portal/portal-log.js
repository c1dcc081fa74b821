"use strict";
// The portal's message log: the deliveries to the tenant's endpoints page by page (newest first, by cursor), one
// message with every attempt and its payload, resending it, and replaying an endpoint's failures since a time.
const PAGE_SIZE = 20;
const UNFINISHED = ["PENDING", "RETRYING"];
// cursors[i] is the cursor of page i (null: the newest); next is the cursor of the page after the one shown.
const log = { cursors: [null], next: null, shown: null };

function logQuery(cursor) {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if ($("log-endpoint").value) query.set("endpoint", $("log-endpoint").value);
  if ($("log-status").value) query.set("status", $("log-status").value);
  if (cursor) query.set("cursor", cursor);
  return "/deliveries?" + query;
}

function cell(row, value, className) {
  const td = row.insertCell();
  td.textContent = value === null || value === undefined ? "" : String(value);
  if (className) td.className = className;
  return td;
}

// "500 Internal Server Error", not "500: 500 Internal Server Error": an error that begins with the status says it.
function lastAnswer(d) {
  if (d.lastStatus && d.lastError && d.lastError.startsWith(String(d.lastStatus))) return d.lastError;
  return [d.lastStatus, d.lastError].filter((x) => x !== null && x !== undefined && x !== "").join(": ");
}

async function loadLog() {
  const page = await api("GET", logQuery(log.cursors[log.cursors.length - 1]));
  log.next = page.nextCursor || null;
  const tbody = $("log-rows");
  tbody.replaceChildren();
  if (page.items.length === 0) {
    const filtered = $("log-endpoint").value || $("log-status").value;
    const td = cell(tbody.insertRow(), filtered ? "No messages match these filters."
        : "No messages yet. Send a test event to an endpoint to see one here.", "empty");
    td.colSpan = 7;
  }
  page.items.forEach((d) => {
    const row = tbody.insertRow();
    row.className = "clickable";
    row.dataset.id = d.id;
    row.dataset.outbox = d.outboxId;
    cell(row, when(d.createdAt));
    cell(row, d.eventType);
    cell(row, d.endpoint);
    cell(row, d.status, "status " + d.status);
    cell(row, d.attempts);
    cell(row, lastAnswer(d));
    button(row.insertCell(), "Details", () => showDelivery(d.id));
    row.addEventListener("click", (event) => {
      if (event.target.tagName !== "BUTTON") act(() => showDelivery(d.id))();
    });
  });
  $("log-newer").disabled = log.cursors.length === 1;
  $("log-older").disabled = !log.next;
}

function resetLog() {
  log.cursors = [null];
  return loadLog();
}

function showLogOf(endpointId) {
  $("log-endpoint").value = endpointId;
  $("log").scrollIntoView();
  return resetLog();
}

async function showDelivery(id) {
  const detail = await api("GET", "/deliveries/" + id);
  const d = detail.delivery;
  log.shown = detail;
  $("delivery-title").textContent = d.eventType + " to " + d.endpoint;
  $("delivery-summary").textContent = [
    "webhook-id " + d.outboxId,
    d.status + ", " + detail.attempts.length + " attempt(s) in all",
    "created " + when(d.createdAt),
    d.completedAt ? "finished " + when(d.completedAt) : "",
    d.nextAttemptAt ? "next attempt " + when(d.nextAttemptAt) : "",
    d.url,
  ].filter((x) => x).join(" · ");
  const tbody = $("attempt-rows");
  tbody.replaceChildren();
  if (detail.attempts.length === 0) {
    cell(tbody.insertRow(), "Not sent yet.", "empty").colSpan = 6;
  }
  // Numbered over the delivery's whole life; a try made again, or a resend, says so beside its error.
  detail.attempts.forEach((a) => {
    const row = tbody.insertRow();
    row.dataset.attempt = a.attempt;
    cell(row, a.attempt);
    cell(row, when(a.startedAt));
    cell(row, a.brokerConfirmed ? "confirmed by the broker"
        : a.statusCode === null || a.statusCode === undefined ? "no answer" : a.statusCode,
        "status " + (a.brokerConfirmed || (a.statusCode >= 200 && a.statusCode < 300) ? "ok" : "failed"));
    cell(row, a.latencyMs + " ms");
    cell(row, a.responseExcerpt, "excerpt");
    cell(row, [a.error, a.again].filter(Boolean).join("; "));
  });
  $("delivery-payload").textContent = JSON.stringify(detail.payload, null, 2);
  const resendable = d.status === "DELIVERED" || d.status === "DEAD_LETTERED";
  $("delivery-resend").disabled = !resendable;
  $("delivery-resend").title = resendable ? "" : "A message can be resent once it is delivered or has failed for good.";
  $("delivery").hidden = false;
  $("delivery").scrollIntoView();
  return detail;
}

/** Asks again every second, up to 30 times, until {@code done} holds of the answer; the last answer either way. */
async function poll(read, done) {
  let answer = await read();
  for (let i = 0; i < 30 && !done(answer); i++) {
    await pause(1000);
    answer = await read();
  }
  return done(answer) ? answer : null;
}

/** The delivery of a just-sent event to this endpoint, once it has an outcome (null if it has none yet). */
async function watchOutbox(endpointId, outboxId) {
  const read = async () => (await api("GET", "/deliveries?endpoint=" + endpointId + "&limit=" + PAGE_SIZE)).items
      .find((d) => d.outboxId === outboxId);
  return poll(read, (d) => Boolean(d) && !UNFINISHED.includes(d.status));
}

async function resend() {
  const before = log.shown;
  if (!before) return;
  const d = before.delivery;
  await api("POST", "/deliveries/" + d.id + "/resend", {});
  say("Resending " + d.eventType + " to " + d.endpoint + " (same webhook-id)…");
  const after = await poll(() => api("GET", "/deliveries/" + d.id),
      (x) => x.attempts.length > before.attempts.length && !UNFINISHED.includes(x.delivery.status));
  if (after) {
    const last = after.attempts[after.attempts.length - 1];
    say("Resent: " + after.delivery.status + " ("
        + (last.brokerConfirmed ? "confirmed by the broker" : last.statusCode || last.error || "no answer") + ").",
        after.delivery.status !== "DELIVERED");
  } else {
    say("Resending; the new attempt shows here once it is made.");
  }
  await Promise.all([showDelivery(d.id), loadLog(), loadEndpoints()]);
}

function localInput(date) {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60000);
  return local.toISOString().slice(0, 16);
}

function openRecover(endpoint) {
  log.recovering = endpoint;
  $("recover-endpoint").textContent = endpoint.name;
  $("recover-since").value = localInput(new Date(Date.now() - 24 * 3600 * 1000));
  $("recover").hidden = false;
  $("recover").scrollIntoView();
}

async function recover() {
  const endpoint = log.recovering;
  const since = new Date($("recover-since").value);
  if (isNaN(since.getTime())) throw new Error("Choose the time to replay failures since.");
  const result = await api("POST", "/endpoints/" + endpoint.id + "/recover", { since: since.toISOString() });
  const replayed = result.recovered !== undefined ? result.recovered : result.replayed;
  say("Replaying " + replayed + " failed message(s) to " + endpoint.name + " since " + since.toLocaleString() +
      (result.skippedDisabledEndpoint ? "; " + result.skippedDisabledEndpoint + " skipped: the endpoint is disabled" : "") +
      (result.remaining ? "; " + result.remaining + " more: replay again for the next batch" : "") + ".");
  $("recover").hidden = true;
  await resetLog();
}

function startLog() {
  $("log-endpoint").addEventListener("change", act(resetLog));
  $("log-status").addEventListener("change", act(resetLog));
  $("log-refresh").addEventListener("click", act(loadLog));
  $("log-older").addEventListener("click", act(() => {
    log.cursors.push(log.next);
    return loadLog();
  }));
  $("log-newer").addEventListener("click", act(() => {
    log.cursors.pop();
    return loadLog();
  }));
  $("delivery-resend").addEventListener("click", act(resend));
  $("delivery-close").addEventListener("click", () => { $("delivery").hidden = true; });
  $("recover-go").addEventListener("click", act(recover));
  $("recover-cancel").addEventListener("click", () => { $("recover").hidden = true; });
}

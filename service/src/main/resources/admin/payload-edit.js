"use strict";
// Fix, then replay: the admin page's editor for a dead letter's payload, and the story's record of each edit.
// Loaded before the page's own script, whose helpers (api, say, $, element, when, load, showStory) it calls.

let editing = null;

async function fixThenReplay(deadLetter) {
  const detail = await api("GET", deadLetter.source === "OUTBOX"
      ? "/admin/deliveries/" + deadLetter.reference : "/admin/inbox/" + deadLetter.reference);
  editing = deadLetter;
  $("edit").hidden = false;
  $("edit-title").textContent = "Fix, then replay " + (deadLetter.eventType || "an event") + " (dead letter " +
      deadLetter.id + ")";
  $("edit-note").textContent = deadLetter.source === "OUTBOX"
      ? "The event's payload: every endpoint that gets this event from now on gets the corrected one."
      : "Applied without checking the partner's signature again: it was verified at intake, and the corrected " +
        "payload is not signed.";
  $("edit-payload").value = JSON.stringify(detail.payload, null, 2);
  $("edit-reason").value = "";
  $("edit").scrollIntoView();
}

async function replayEdited() {
  const deadLetter = editing;
  let payload;
  try {
    payload = JSON.parse($("edit-payload").value);
  } catch (e) {
    throw new Error("The payload is not JSON: " + e.message);
  }
  const reason = $("edit-reason").value.trim();
  if (!reason) throw new Error("Say why the payload changes: the reason is kept with the edit.");
  if (!confirm("Replay dead letter " + deadLetter.id + " with the edited payload?\nReason: " + reason)) return;
  const body = { payload, reason };
  const by = $("edit-by").value.trim();
  if (by) body.by = by;
  await api("POST", "/admin/dead-letters/" + deadLetter.id + "/replay", body);
  $("edit").hidden = true;
  editing = null;
  say("Replayed dead letter " + deadLetter.id + " with the corrected payload; the edit is in its story.");
  await load();
  await showStory(deadLetter.id);
}

function shownValue(value) {
  return value === undefined ? "(none)" : JSON.stringify(value);
}

// Each edit of the row's payload: who, when, why, the signature's note and what changed.
function payloadEditNotes(container, story, rowId) {
  (story.payloadEdits || []).filter((e) => e.rowId === rowId).forEach((e) => {
    const box = element("div", "payload-edit");
    box.appendChild(element("div", "note", "payload edited " + when(e.editedAt) + " by " +
        (e.by ? e.by + " (" + e.actor + ")" : e.actor) + ": " + e.reason +
        (e.signature ? " — signature " + e.signature : "")));
    const changes = element("ul", "changes");
    e.changes.forEach((c) => changes.appendChild(element("li", null,
        c.path + ": " + shownValue(c.from) + " → " + shownValue(c.to))));
    box.appendChild(changes);
    container.appendChild(box);
  });
}

document.addEventListener("DOMContentLoaded", () => {
  $("edit-replay").addEventListener("click", () => replayEdited().catch((e) => say(e.message, true)));
  $("edit-cancel").addEventListener("click", () => {
    $("edit").hidden = true;
    editing = null;
  });
});

"use strict";
const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
tokenInput.value = sessionStorage.getItem("relaybox-token") || "";
const workflowId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
$("workflow-id").textContent = workflowId;

function when(instant) {
  return instant ? instant.replace("T", " ").replace(/(\.\d{3})\d*Z$/, "$1Z") : "";
}

async function load() {
  sessionStorage.setItem("relaybox-token", tokenInput.value);
  const response = await fetch("/admin/workflows/" + encodeURIComponent(workflowId) + "/history",
      { headers: { "Authorization": "Bearer " + tokenInput.value } });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(data.reason || ("HTTP " + response.status));
  }
  $("status").textContent = data.status;
  $("workflow-type").textContent = data.workflowType;
  $("summary").textContent = data.summary || "";
  $("current-details").textContent = data.currentDetails || "";
  $("run-id").textContent = data.runId || "";
  if (data.temporalUrl) {
    const a = document.createElement("a");
    a.href = data.temporalUrl;
    a.textContent = "open in the Temporal UI";
    a.target = "_blank";
    a.rel = "noopener";
    $("temporal-ui").replaceChildren(a);
  }
  const list = $("timeline");
  list.replaceChildren();
  data.timeline.forEach((entry) => {
    const li = document.createElement("li");
    li.dataset.kind = entry.kind;
    const time = document.createElement("span");
    time.className = "time";
    time.textContent = when(entry.at);
    const kind = document.createElement("span");
    kind.className = "kind " + entry.kind;
    kind.textContent = entry.kind.replace("-", " ");
    const text = document.createElement("div");
    const title = document.createElement("div");
    title.className = "title";
    title.textContent = entry.title;
    text.appendChild(title);
    if (entry.detail) {
      const detail = document.createElement("div");
      detail.className = "detail";
      detail.textContent = entry.detail;
      text.appendChild(detail);
    }
    li.append(time, kind, text);
    list.appendChild(li);
  });
  $("message").textContent = "";
}

const show = () => load().catch((e) => { $("message").textContent = e.message; });
$("connect").addEventListener("click", show);
if (tokenInput.value) show();

'use strict';
// The customer portal: everything through /portal/api with the link's token, kept in this tab only.
const state = { endpoints: [], cursor: null };
const $ = id => document.getElementById(id);

function token() {
  const match = location.hash.match(/token=([^&]+)/);
  if (match) {
    sessionStorage.setItem('relaybox-portal-token', match[1]);
    history.replaceState(null, '', location.pathname);
  }
  return sessionStorage.getItem('relaybox-portal-token');
}

async function api(method, path, body) {
  const response = await fetch('/portal/api' + path, {
    method,
    headers: { 'Authorization': 'Bearer ' + token(), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = response.status === 204 ? null : await response.json();
  if (response.status === 401) {
    throw new Error('This link has expired or was revoked: open the portal again from your account settings.');
  }
  if (!response.ok) throw new Error(answer.reason || response.statusText);
  return answer;
}

function say(text, error) {
  $('message').textContent = text;
  $('message').className = error ? 'error' : '';
}

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
  return node;
}

function button(text, action, quiet) {
  const b = el('button', text, { type: 'button' });
  if (quiet) b.className = 'quiet';
  b.addEventListener('click', () => action().catch(e => say(e.message, true)));
  return b;
}

function showSecret(endpoint) {
  $('secret-of').textContent = endpoint.name;
  $('secret-value').textContent = endpoint.secret;
  $('secret').hidden = false;
}

async function loadEndpoints() {
  state.endpoints = await api('GET', '/endpoints');
  const list = $('endpoints');
  list.replaceChildren();
  if (state.endpoints.length === 0) list.appendChild(el('p', 'No endpoints yet: add one below.'));
  const select = $('filter-endpoint');
  select.replaceChildren(el('option', 'all', { value: '' }));
  for (const e of state.endpoints) {
    select.appendChild(el('option', e.name, { value: e.id }));
    const card = el('div', null, { class: 'endpoint' + (e.enabled ? '' : ' disabled'), 'data-id': e.id });
    card.appendChild(el('b', e.name));
    card.appendChild(el('div', e.url, { class: 'url' }));
    card.appendChild(el('div', 'Events: ' + e.eventTypes.join(', ') + (e.enabled ? '' : ' · disabled')));
    const chart = el('div', null, { class: 'chart-box' });
    card.appendChild(chart);
    api('GET', `/endpoints/${e.id}/stats`).then(stats => chart.appendChild(attemptsChart(stats)));
    const actions = el('div', null, { class: 'actions' });
    actions.append(
      button('Send test event', async () => {
        await api('POST', `/endpoints/${e.id}/test`, {});
        say(`Test event sent to ${e.name}.`);
        setTimeout(() => loadDeliveries(true), 1000);
      }),
      button('Rotate secret', async () => {
        if (!confirm(`Rotate the signing secret of ${e.name}? The old one keeps signing for a grace period.`)) return;
        showSecret(await api('PATCH', `/endpoints/${e.id}`, { rotateSecret: true }));
        say(`New secret for ${e.name}.`);
      }, true),
      button(e.enabled ? 'Disable' : 'Enable', async () => {
        await api('PATCH', `/endpoints/${e.id}`, { enabled: !e.enabled });
        await loadEndpoints();
      }, true),
      button('Replay failures since…', async () => {
        const since = prompt('Replay every failure since (ISO time):', new Date(Date.now() - 3600e3).toISOString());
        if (!since) return;
        const r = await api('POST', `/endpoints/${e.id}/recover`, { since });
        say(`Replaying ${r.recovered} failed deliveries to ${e.name}` + (r.remaining ? ` (${r.remaining} more)` : '.'));
      }, true),
      button('Messages', async () => { $('filter-endpoint').value = e.id; await loadDeliveries(true); }, true));
    card.appendChild(actions);
    list.appendChild(card);
  }
}

async function loadDeliveries(fresh) {
  if (fresh) { state.cursor = null; $('deliveries').replaceChildren(); }
  const query = new URLSearchParams({ limit: '25' });
  if ($('filter-endpoint').value) query.set('endpoint', $('filter-endpoint').value);
  if ($('filter-status').value) query.set('status', $('filter-status').value);
  if (state.cursor) query.set('cursor', state.cursor);
  const page = await api('GET', '/deliveries?' + query);
  if (fresh && page.items.length === 0) {
    $('deliveries').appendChild(el('tr')).appendChild(el('td', 'No messages yet.', { colspan: '6' }));
  }
  for (const d of page.items) {
    const row = el('tr', null, { 'data-id': d.id });
    [new Date(d.createdAt).toLocaleString(), d.eventType, d.endpoint, d.status, String(d.attempts)]
      .forEach(text => row.appendChild(el('td', text)));
    row.appendChild(el('td')).appendChild(button('Details', () => showDelivery(d.id), true));
    $('deliveries').appendChild(row);
  }
  state.cursor = page.nextCursor;
  $('more').hidden = !page.nextCursor;
}

async function showDelivery(id) {
  const detail = await api('GET', `/deliveries/${id}`);
  $('detail-id').textContent = `${detail.delivery.eventType} → ${detail.delivery.endpoint} (${detail.delivery.status})`;
  $('detail').dataset.id = id;
  $('attempts').replaceChildren();
  for (const a of detail.attempts) {
    const row = el('tr');
    [String(a.attempt), new Date(a.startedAt).toLocaleString(), a.statusCode ? String(a.statusCode) : (a.error || ''),
      a.latencyMs + ' ms', a.responseExcerpt || ''].forEach(text => row.appendChild(el('td', text)));
    $('attempts').appendChild(row);
  }
  $('payload').textContent = JSON.stringify(detail.payload, null, 2);
  $('detail').hidden = false;
}

async function start() {
  if (!token()) { say('Open the portal from the link your provider gives you.', true); return; }
  const me = await api('GET', '/me');
  const theme = me.theme || {};
  document.title = $('title').textContent = theme.title || 'Webhooks';
  $('tenant').textContent = me.tenant.name;
  if (theme.accentColor) document.documentElement.style.setProperty('--accent', theme.accentColor);
  if (theme.logoUrl) { $('logo').src = theme.logoUrl; $('logo').hidden = false; }
  for (const t of await api('GET', '/event-types')) {
    const label = el('label', ' ' + t.name);
    label.prepend(el('input', null, { type: 'checkbox', value: t.name }));
    $('new-types').appendChild(label);
  }
  $('portal').hidden = false;
  await loadEndpoints();
  await loadDeliveries(true);
}

$('new-endpoint').addEventListener('submit', event => {
  event.preventDefault();
  const types = [...$('new-types').querySelectorAll('input:checked')].map(i => i.value);
  const body = { name: $('new-name').value, url: $('new-url').value };
  if (types.length) body.eventTypes = types;
  api('POST', '/endpoints', body).then(async created => {
    showSecret(created);
    say(`Added ${created.name}.`);
    $('new-endpoint').reset();
    await loadEndpoints();
  }).catch(e => say(e.message, true));
});
$('secret-copy').addEventListener('click', () => navigator.clipboard.writeText($('secret-value').textContent));
$('refresh').addEventListener('click', () => loadDeliveries(true).catch(e => say(e.message, true)));
$('more').addEventListener('click', () => loadDeliveries(false).catch(e => say(e.message, true)));
$('filter-endpoint').addEventListener('change', () => loadDeliveries(true).catch(e => say(e.message, true)));
$('filter-status').addEventListener('change', () => loadDeliveries(true).catch(e => say(e.message, true)));
$('resend').addEventListener('click', () => api('POST', `/deliveries/${$('detail').dataset.id}/resend`, {})
  .then(() => say('Resending.')).catch(e => say(e.message, true)));
start().catch(e => say(e.message, true));

// The developer console's three files, served as they are by the API (no build step, no third-party asset).

export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toolgate developer console</title>
<link rel="stylesheet" href="/console/console.css">
</head>
<body>
<header><h1>Toolgate developer console</h1></header>
<main>
<section><h2>Apps</h2><ul id="apps"></ul></section>
<section id="app" hidden>
  <h2 id="app-title"></h2>
  <p id="app-limits"></p>
  <h3>Tools</h3><ul id="tools"></ul>
  <h3>Test call</h3>
  <form id="test-form">
    <label>Tool <select id="test-tool" name="tool"></select></label>
    <label>Arguments (JSON) <textarea id="test-arguments" name="arguments">{}</textarea></label>
    <label>Configuration (JSON) <textarea id="test-configuration" name="configuration">{}</textarea></label>
    <label>Private data (JSON) <textarea id="test-private-data" name="private_data">{}</textarea></label>
    <button type="submit">Call</button>
  </form>
  <pre id="test-answer"></pre>
  <h3>Calls</h3>
  <form id="filters">
    <label>Status <select id="filter-status" name="status"><option value="">any</option>
      <option>queued</option><option>in_progress</option><option>succeeded</option><option>failed</option>
      <option>cancelled</option></select></label>
    <label>Tool <input id="filter-tool" name="tool_name"></label>
    <label>Agent <input id="filter-agent" name="agent_id"></label>
    <button type="submit">Filter</button>
  </form>
  <table><thead><tr><th>call</th><th>tool</th><th>agent</th><th>status</th><th>accepted</th></tr></thead>
  <tbody id="calls"></tbody></table>
</section>
<section id="call" hidden>
  <h2>Call <span id="call-id"></span></h2>
  <p id="call-summary"></p>
  <button id="replay" type="button">Replay</button>
  <table><thead><tr><th>round</th><th>n</th><th>started</th><th>outcome</th><th>HTTP</th><th>ms</th><th>error</th></tr>
  </thead><tbody id="attempts"></tbody></table>
</section>
<p id="problem" role="alert"></p>
</main>
<script src="/console/console.js"></script>
</body>
</html>
`;

export const SIGN_IN_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Toolgate developer console: sign in</title>
<link rel="stylesheet" href="/console/console.css"></head>
<body><main>
<h1>Toolgate developer console</h1>
<p>Sign in with your developer token (<code>npm run token -- developer &lt;your id&gt;</code>).</p>
<form method="get" action="/console"><label>Developer token <input name="token" type="password" required></label>
<button type="submit">Sign in</button></form>
</main></body>
</html>
`;

export const CONSOLE_CSS = `body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; }
header { background: #1b1f24; color: #fff; padding: 0.5rem 1rem; }
header h1 { font-size: 1.1rem; margin: 0; }
main { padding: 1rem; max-width: 70rem; }
section { margin-bottom: 1.5rem; }
label { display: block; margin: 0.3rem 0; }
textarea { display: block; width: 100%; min-height: 3rem; font-family: monospace; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; }
tr[data-call] { cursor: pointer; }
tr[data-call]:hover { background: #f2f5f8; }
.test { font-size: 0.8em; background: #ffe9a8; padding: 0 0.3em; border-radius: 3px; }
#problem { color: #a40000; }
pre { background: #f6f8fa; padding: 0.5rem; white-space: pre-wrap; }
`;

export const CONSOLE_JS = `'use strict';
// The console reads the developer's JSON routes with its cookie; the header below is what lets the cookie count.
const HEADERS = { 'x-toolgate-console': '1' };
const $ = (id) => document.getElementById(id);
const state = { app: null, call: null };

async function api(method, path, body) {
  const init = { method, headers: { ...HEADERS }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (response.status === 401) window.location.assign('/console');
  if (!response.ok) throw new Error((json && (json.detail || json.title)) || 'HTTP ' + response.status);
  return json;
}

function element(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  return node;
}

function show(error) {
  $('problem').textContent = error ? String(error.message || error) : '';
}

async function loadApps() {
  const apps = await api('GET', '/v1/apps?limit=100');
  const list = $('apps');
  list.replaceChildren();
  for (const app of apps.data) {
    const item = element('li');
    const link = element('a', app.display_name + ' (' + app.name + ')', { href: '#', 'data-app': app.id });
    link.addEventListener('click', (event) => {
      event.preventDefault();
      openApp(app).catch(show);
    });
    item.append(link);
    list.append(item);
  }
}

async function openApp(app) {
  state.app = app;
  $('app').hidden = false;
  $('call').hidden = true;
  $('app-title').textContent = app.display_name;
  const names = [];
  const tools = await api('GET', '/v1/apps/' + app.id + '/tools?limit=100');
  for (const tool of tools.data) names.push(tool.name);
  if (app.agent_tools && app.agent_tools.mode === 'mcp') {
    const mcp = await api('GET', '/v1/apps/' + app.id + '/mcp/tools');
    for (const tool of mcp.data) names.push(tool.name);
  }
  $('tools').replaceChildren(...names.map((name) => element('li', name)));
  const limits = await api('GET', '/v1/apps/' + app.id + '/delivery-limits');
  $('app-limits').textContent = 'Delivery limits: ' +
    (limits.max_in_flight === null ? 'no cap on requests in flight' : limits.max_in_flight + ' in flight') + ', ' +
    (limits.max_per_second === null ? 'no rate' : limits.max_per_second + ' a second') + '; last held back: ' +
    (limits.last_held_back_at === null ? 'never (30 days)' : limits.last_held_back_at) + '.';
  $('test-tool').replaceChildren(...names.map((name) => element('option', name, { value: name })));
  await loadCalls();
}

async function loadCalls() {
  const query = new URLSearchParams({ limit: '50' });
  if ($('filter-status').value) query.set('status', $('filter-status').value);
  if ($('filter-tool').value) query.set('tool_name', $('filter-tool').value);
  if ($('filter-agent').value) query.set('agent_id', $('filter-agent').value);
  const calls = await api('GET', '/v1/apps/' + state.app.id + '/tool-calls?' + query);
  $('calls').replaceChildren(
    ...calls.data.map((call) => {
      const row = element('tr', undefined, { 'data-call': call.id });
      const id = element('td', call.id);
      if (call.test) id.append(' ', element('span', 'test', { class: 'test' }));
      row.append(id, element('td', call.tool_name), element('td', call.agent_id), element('td', call.status),
        element('td', call.accepted_at));
      row.addEventListener('click', () => openCall(call.id).catch(show));
      return row;
    }),
  );
}

async function openCall(callId) {
  const call = await api('GET', '/v1/apps/' + state.app.id + '/tool-calls/' + callId);
  state.call = call;
  $('call').hidden = false;
  $('call-id').textContent = call.id;
  $('call-summary').textContent = call.tool_name + ': ' + call.status + (call.test ? ' (test call)' : '') +
    ', round ' + call.round;
  $('attempts').replaceChildren(
    ...call.attempts.map((attempt) => {
      const row = element('tr');
      for (const value of [attempt.round, attempt.n, attempt.started_at, attempt.outcome, attempt.http_status,
        attempt.duration_ms, attempt.error]) row.append(element('td', value === null ? '' : String(value)));
      return row;
    }),
  );
}

function parsed(id) {
  const text = $(id).value.trim();
  return text === '' ? undefined : JSON.parse(text);
}

$('test-form').addEventListener('submit', (event) => {
  event.preventDefault();
  show(null);
  (async () => {
    const body = { arguments: parsed('test-arguments'), configuration: parsed('test-configuration'),
      private_data: parsed('test-private-data') };
    const tool = encodeURIComponent($('test-tool').value);
    const answer = await api('POST', '/v1/apps/' + state.app.id + '/tools/' + tool + '/test-calls', body);
    $('test-answer').textContent = JSON.stringify(answer, null, 2);
    await loadCalls();
    await openCall(answer.call_id);
  })().catch(show);
});

$('filters').addEventListener('submit', (event) => {
  event.preventDefault();
  loadCalls().catch(show);
});

$('replay').addEventListener('click', () => {
  show(null);
  (async () => {
    await api('POST', '/v1/apps/' + state.app.id + '/tool-calls/' + state.call.id + '/replay');
    await openCall(state.call.id);
    await loadCalls();
  })().catch(show);
});

loadApps().catch(show);
`;

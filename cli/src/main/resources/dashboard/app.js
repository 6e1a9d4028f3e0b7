// The Cotenant dashboard: plain DOM, no framework, no request anywhere but this daemon's /api.
// The token arrives in the URL fragment (#token=...), which a browser never sends to a server; it
// is kept in sessionStorage (this tab only) and removed from the address bar at once.
'use strict';

(function () {
  const TOKEN_KEY = 'cotenant.token';
  const MEASURE_POLL_MS = 500;
  const SHARE_POLL_MS = 500;
  const BACKENDS_POLL_MS = 3000;

  const ARCH = 'docs/architecture.md#25-the-reason-table';

  // Every reason code of the closed vocabulary (api/.../ReasonCode.java), in plain words, and the
  // document of the Cotenant repository that explains it.
  const REASONS = {
    observed_hazard: ['A hazard was recorded for this server under its current launch identity (the detail names it); it is not routed or shared until the record is cleared.', 'docs/records.md#observed-hazardsjson-schema-1'],
    not_stdio: ['The server is not reached over a stdio pipe, so sharing a process does not apply: out of scope, not unsafe.', ARCH],
    session_bound_by_construction: ['The host says this server works out who its caller is from its own process, so one process cannot serve two sessions.', ARCH],
    declares_caller_identity: ['The server declares that it takes the caller\'s identity from each request (the detail names the capability key).', ARCH],
    registered_shared: ['An operator registered the server as shared, and its whole-surface statelessness probe passed under the current launch identity.', 'docs/statelessness.md#registering-a-server'],
    preflight_passed: ['The pre-flight started the server twice and both handshakes matched.', 'docs/preflight.md#what-is-compared-and-why'],
    preflight_not_run: ['The pre-flight could not ask this server (the detail says why, for example a missing credential); this grounds nothing.', 'docs/preflight.md#ran-answered-no-versus-could-not-ask'],
    handshake_not_reproducible: ['Two handshakes of the server differed in this part (the detail names it); a note that gates nothing.', 'docs/preflight.md#what-is-compared-and-why'],
    rotating_secret_env: ['An environment variable that looks like a secret is left out of the pool key (the detail names it).', ARCH],
    degrades_when_shared: ['The server offers logging, whose level would be one setting for every session sharing it.', ARCH],
    ledger_unreadable: ['The hazard ledger could not be read completely (the detail names the file and the problem); nothing is recommended for sharing until it can.', 'docs/records.md#fail-closed-reading'],
    concurrency_records_unreadable: ['The concurrency records could not be read completely (the detail names the file and the problem); nothing is recommended for sharing until they can.', 'docs/records.md#fail-closed-reading'],
    all_tools_read_only: ['Every tool declares readOnlyHint: true; supporting evidence, never a ground.', ARCH],
    no_tool_annotations: ['The server gave no tool annotations (the detail is the negotiated protocol version).', ARCH],
    no_tools_listed: ['The server listed no tools.', ARCH],
    statelessness_probe_passed: ['An interleaved statelessness probe passed under the current launch identity (the detail says which tools and how many rounds).', 'docs/statelessness.md#the-whole-surface-probe'],
    no_objection_found: ['A handshake was seen and nothing disqualifying was found.', ARCH],
    not_probed: ['No handshake has been seen: measure the server to learn more.', ARCH]
  };

  const STRENGTHS = ['refuted', 'disqualified', 'declared', 'measured', 'no_objection', 'unknown'];

  const $ = (id) => document.getElementById(id);

  let token = null;
  let refused = false;
  let measureTimer = null;
  let backendsTimer = null;
  let backendsInFlight = false;
  let measureWasRunning = false;
  let shareTimer = null;
  let shareWasRunning = false;
  let daemonHasConfig = true;
  // The last backends read, by server name: the rows say what runs of each.
  let backendsByServer = new Map();

  // ---- the token -------------------------------------------------------------------------

  function takeToken() {
    const hash = location.hash.startsWith('#') ? location.hash.substring(1) : location.hash;
    const params = new URLSearchParams(hash);
    const fromHash = params.get('token');
    if (fromHash) {
      try {
        sessionStorage.setItem(TOKEN_KEY, fromHash);
      } catch (e) {
        // Storage refused: the token still serves this page's lifetime.
      }
      history.replaceState(null, '', location.pathname + location.search);
      return fromHash;
    }
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch (e) {
      return null;
    }
  }

  function showAuthProblem(title, text) {
    $('auth-problem-title').textContent = title;
    $('auth-problem-text').textContent = text;
    $('auth-problem').hidden = false;
    $('connection').textContent = title;
    document.body.classList.add('no-access');
  }

  // ---- calls to /api ---------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function api(method, path, body) {
    if (!token) {
      throw new ApiError(401, 'unauthorized', 'no token');
    }
    const init = {
      method: method,
      headers: { 'Authorization': 'Bearer ' + token, 'Accept': 'application/json' },
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error'
    };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch('/api' + path, init);
    } catch (e) {
      $('connection').textContent = 'The daemon cannot be reached: it may have stopped.';
      throw new ApiError(0, 'unreachable', 'the daemon cannot be reached (' + e.message + ')');
    }
    let data = null;
    const type = response.headers.get('Content-Type') || '';
    if (type.includes('json')) {
      try {
        data = await response.json();
      } catch (e) {
        data = null;
      }
    }
    if (response.status === 401) {
      refusedToken();
    }
    if (!response.ok) {
      const code = data && data.code ? data.code : 'http_' + response.status;
      let message = data && data.message ? data.message : response.status + ' ' + response.statusText;
      if (response.status === 404 && !data) {
        message = 'this daemon has no ' + path.split('?')[0] + ' (is it an older version?)';
      }
      throw new ApiError(response.status, code, message);
    }
    if (!refused) {
      $('connection').textContent = 'Connected to the daemon at ' + location.host + '.';
    }
    return data;
  }

  function refusedToken() {
    if (refused) {
      return;
    }
    refused = true;
    stopTimers();
    showAuthProblem('Token refused',
      'The daemon refused this page\'s token (401). The address may be from another Cotenant home, or the token file was replaced.');
  }

  function stopTimers() {
    if (measureTimer) {
      clearTimeout(measureTimer);
      measureTimer = null;
    }
    if (backendsTimer) {
      clearInterval(backendsTimer);
      backendsTimer = null;
    }
    if (shareTimer) {
      clearTimeout(shareTimer);
      shareTimer = null;
    }
  }

  function describe(e) {
    if (e instanceof ApiError) {
      return e.message + (e.code && !e.code.startsWith('http_') ? ' (' + e.code + ')' : '');
    }
    return String(e && e.message ? e.message : e);
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (k === 'text') {
          node.textContent = v;
        } else if (k === 'className') {
          node.className = v;
        } else if (v !== null && v !== undefined && v !== false) {
          node.setAttribute(k, v === true ? '' : String(v));
        }
      }
    }
    for (const c of children || []) {
      node.append(c);
    }
    return node;
  }

  // ---- the confirmation dialog -----------------------------------------------------------

  function confirmAction(title, text, items, okLabel) {
    const dialog = $('confirm');
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    const list = $('confirm-list');
    list.replaceChildren(...items.map((i) => el('li', { text: i })));
    list.hidden = items.length === 0;
    $('confirm-ok').textContent = okLabel;
    dialog.returnValue = '';
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
      dialog.showModal();
      $('confirm-cancel').focus();
    });
  }

  // ---- servers ---------------------------------------------------------------------------

  function yesNo(b) {
    return b ? 'yes' : 'no';
  }

  function strengthBadge(strength) {
    const known = STRENGTHS.includes(strength) ? strength : 'other';
    return el('span', { className: 'strength strength-' + known, text: strength });
  }

  function reasonItem(reason) {
    const known = REASONS[reason.code];
    const meaning = known ? known[0] : 'A reason this dashboard does not know yet.';
    const doc = known ? known[1] : ARCH;
    const head = el('span', { className: 'reason-code' }, [el('code', { text: reason.code })]);
    if (reason.detail) {
      head.append(' ', el('span', { className: 'reason-detail', text: '(' + reason.detail + ')' }));
    }
    return el('li', { 'data-code': reason.code }, [
      head,
      el('span', { className: 'reason-meaning', text: meaning }),
      el('span', { className: 'reason-doc' }, ['Explained in ', el('code', { text: doc })])
    ]);
  }

  function selectedServers() {
    return Array.from(document.querySelectorAll('#servers-body input.select-server:checked')).map((c) => c.value);
  }

  function updateSelection() {
    const n = selectedServers().length;
    $('route-selected').disabled = n === 0 || !daemonHasConfig;
    $('selection-count').textContent = n === 0 ? 'No server selected' : n === 1 ? '1 server selected' : n + ' servers selected';
  }

  // Where a row comes from: the file, and whether the daemon was started with it or a client's shim named it.
  function sourceCell(s, files) {
    const file = files.find((f) => f.path === s.source);
    const parts = [el('span', { className: 'server-name', text: s.name }), el('span', { className: 'source', text: s.source || '' })];
    if (file) {
      let from = file.from === 'shim' ? 'named by a client\'s shim' : 'a configuration file of the daemon';
      if (file.routedFrom) {
        from = 'routed from ' + file.routedFrom + ' (' + from + ')';
      }
      parts.push(el('span', { className: 'origin', 'data-from': file.from, text: from }));
    }
    return el('th', { scope: 'row' }, parts);
  }

  function reasonText(r) {
    return r.code + (r.detail ? '(' + r.detail + ')' : '');
  }

  // The next step a row's verdict leaves: what to do, or why nothing can be done.
  function nextStep(s) {
    const reasons = s.reasons || [];
    if (s.strength === 'refuted') {
      const hazards = reasons.filter((r) => r.code === 'observed_hazard').map((r) => r.detail).filter((d) => d);
      return { kind: 'refuted', text: 'refuted' + (hazards.length ? ' (' + hazards.join(', ') + ')' : '') + ': ', link: true, share: false };
    }
    if (s.strength === 'disqualified') {
      const why = reasons.filter((r) => r.code !== 'observed_hazard').map(reasonText);
      return { kind: 'cannot-share', text: 'cannot share' + (why.length ? ': ' + why[0] : ''), share: false };
    }
    if (s.recommendShare) {
      return s.placement === 'shared'
        ? { kind: 'shares', text: 'shares one backend across sessions', share: false }
        : { kind: 'sharing-off', text: 'may share, but sharing is off in this daemon (cotenant.sharing.enabled)', share: false };
    }
    if (s.forced) {
      return { kind: 'forced', text: 'shared because an operator forced it; probe to share on evidence', share: true };
    }
    if (reasons.some((r) => r.code === 'preflight_not_run')) {
      return { kind: 'cannot-start', text: 'could not be started to measure (preflight_not_run says why); once it can, share',
        share: true };
    }
    if (s.strength === 'unknown') {
      return { kind: 'measure-and-probe', text: 'measure and probe to share', share: true };
    }
    return { kind: 'probe-to-share', text: 'probe to share', share: true };
  }

  // What the daemon runs of a server now: shared, or dedicated and why.
  function runningText(name) {
    const backends = backendsByServer.get(name) || [];
    return backends.map((b) => (b.placement === 'shared'
      ? 'running: shared, ' + b.sessions + (b.sessions === 1 ? ' session' : ' sessions')
      : 'running: dedicated: ' + (b.reason || 'no reason given'))).join('; ');
  }

  function updateRunning() {
    for (const span of document.querySelectorAll('#servers-body .running')) {
      const text = runningText(span.dataset.server);
      if (span.textContent !== text) {
        span.textContent = text;
      }
      span.hidden = text === '';
    }
  }

  function nextCell(s) {
    const step = nextStep(s);
    const cell = el('td', { className: 'next-step', 'data-next': step.kind });
    const text = el('span', { className: 'next-text', text: step.text });
    cell.append(text);
    if (step.link) {
      text.append(el('a', { href: '#hazards', text: 'see hazard' }));
    }
    const running = el('span', { className: 'running', 'data-server': s.name, text: runningText(s.name) });
    running.hidden = running.textContent === '';
    cell.append(running);
    if (step.share) {
      const button = el('button', { type: 'button', className: 'share-server', 'data-server': s.name, text: 'Share',
        'aria-label': 'Share ' + s.name });
      button.disabled = shareWasRunning;
      button.addEventListener('click', () => shareServer(s.name));
      cell.append(button);
    }
    return cell;
  }

  async function loadRows() {
    const status = $('rows-status');
    status.textContent = 'Loading the servers…';
    let data;
    try {
      data = await api('GET', '/rows');
    } catch (e) {
      status.textContent = 'The servers could not be loaded: ' + describe(e);
      return;
    }
    const keep = new Set(selectedServers());
    const body = $('servers-body');
    const rows = (data && data.servers) || [];
    const files = (data && data.files) || [];
    daemonHasConfig = files.some((f) => f.from === 'serve');
    const unavailable = $('route-unavailable');
    unavailable.hidden = daemonHasConfig;
    unavailable.textContent = daemonHasConfig ? '' : 'Route selected needs a configuration file of the daemon\'s own to write to; '
      + 'this daemon was started without one (a shim started it). cotenant route CONFIG --apply routes a client\'s servers instead.';
    body.replaceChildren(...rows.map((s) => {
      const check = el('input', {
        type: 'checkbox', className: 'select-server', value: s.name,
        id: 'select-' + s.name, 'aria-label': 'Select ' + s.name, checked: keep.has(s.name)
      });
      check.checked = keep.has(s.name);
      check.addEventListener('change', updateSelection);
      const placement = el('span', { text: s.placement || '–' });
      const placementCell = el('td', { className: 'placement' }, [placement]);
      if (s.forced) {
        placementCell.append(' ', el('span', { className: 'forced', text: 'forced' }));
      }
      return el('tr', { 'data-server': s.name, 'data-strength': s.strength }, [
        el('td', {}, [check]),
        sourceCell(s, files),
        el('td', {}, [strengthBadge(s.strength)]),
        el('td', { className: 'yes-no recommend-route', text: yesNo(s.recommendStub) }),
        el('td', { className: 'yes-no recommend-share', text: yesNo(s.recommendShare) }),
        placementCell,
        nextCell(s),
        el('td', {}, [el('ul', { className: 'reasons' }, (s.reasons || []).map(reasonItem))])
      ]);
    }));
    updateSelection();
    const when = new Date().toLocaleTimeString();
    const problems = files.filter((f) => f.problem);
    let text;
    if (rows.length > 0) {
      text = rows.length + (rows.length === 1 ? ' server' : ' servers') + ', as of ' + when + '.';
    } else if (files.length === 0) {
      text = 'No server yet: the daemon was started without a configuration file, and no client has connected through '
        + 'a shim (cotenant connect NAME CONFIG) since it started. Its servers appear here once one does.';
    } else {
      text = 'The configuration files name no server: ' + files.map((f) => f.path).join(', ') + '.';
    }
    for (const f of problems) {
      text += ' ' + f.path + ' cannot be read now (' + f.problem + '); its servers are left out.';
    }
    status.textContent = text;
  }

  async function routeSelected() {
    const names = selectedServers();
    if (names.length === 0) {
      return;
    }
    const ok = await confirmAction('Route ' + (names.length === 1 ? 'this server' : 'these servers') + ' through Cotenant?',
      'Each eligible server is written to cotenant.stubOverrides in the daemon\'s first configuration file, '
        + 'so an MCP gateway reading that file routes its clients to it through Cotenant. Servers whose verdict does '
        + 'not allow it are skipped.',
      names, 'Route ' + names.length);
    if (!ok) {
      return;
    }
    const result = $('route-result');
    result.hidden = false;
    result.replaceChildren(el('p', { text: 'Writing…' }));
    let data;
    try {
      data = await api('POST', '/stub', { servers: names });
    } catch (e) {
      result.replaceChildren(el('p', { className: 'error', text: 'Nothing was routed: ' + describe(e) }));
      return;
    }
    const routed = data.stubbed || [];
    const skipped = data.skipped || {};
    const parts = [
      el('p', { text: 'Written to ' + data.config + ' (sharing ' + (data.sharing ? 'on' : 'off') + ' in that file).' }),
      el('h3', { text: 'Routed' }),
      routed.length === 0
        ? el('p', { id: 'routed-none', text: 'None.' })
        : el('ul', { id: 'routed-list' }, routed.map((n) => el('li', { 'data-server': n, text: n })))
    ];
    const skippedNames = Object.keys(skipped);
    if (skippedNames.length > 0) {
      parts.push(el('h3', { text: 'Skipped' }));
      parts.push(el('ul', { id: 'skipped-list' }, skippedNames.map((n) =>
        el('li', { 'data-server': n }, [el('strong', { text: n }), ': ' + skipped[n]]))));
    }
    result.replaceChildren(...parts);
    for (const c of document.querySelectorAll('#servers-body input.select-server')) {
      c.checked = false;
    }
    updateSelection();
    loadRows();
  }

  // ---- share -----------------------------------------------------------------------------

  function setShareButtons(disabled) {
    for (const b of document.querySelectorAll('#servers-body button.share-server')) {
      b.disabled = disabled;
    }
  }

  function stepItem(step) {
    const item = el('li', { 'data-step': step.step, 'data-result': step.result }, [
      el('strong', { text: step.step + ': ' }), step.message
    ]);
    if (step.needsPlan && step.needsPlan.length > 0) {
      item.append(el('ul', {}, step.needsPlan.map((t) => el('li', { text: t.tool + ': ' + t.status + ': ' + t.why }))));
      if (step.plan) {
        item.append(el('p', { text: 'A plan for these tools (write it to a file, then run the command below with --plan FILE):' }),
          el('pre', {}, [el('code', { text: JSON.stringify(step.plan, null, 2) })]));
      }
    }
    return item;
  }

  function showShare(state) {
    const box = $('share-result');
    if (!state || !state.server) {
      return;
    }
    box.hidden = false;
    box.dataset.server = state.server;
    box.dataset.running = String(!!state.running);
    const parts = [el('h3', { text: (state.running ? 'Sharing ' : 'Share of ') + state.server })];
    parts.push(el('ol', { id: 'share-steps' }, (state.steps || []).map(stepItem)));
    if (state.running) {
      const doing = state.doing === 'measure' ? 'Measuring it: starting it twice and comparing its handshakes…'
        : state.doing === 'probe' ? 'Probing its whole surface: two callers, each tool, several rounds. This can take a minute…'
          : 'Working…';
      parts.push(el('p', { className: 'status', text: doing }));
    } else if (state.error) {
      parts.push(el('p', { id: 'share-outcome', className: 'error', text: 'The share did not run to its end: ' + state.error }));
    } else if (state.result) {
      parts.push(el('p', {
        id: 'share-outcome', className: state.result.shared ? 'outcome-shared' : 'outcome-not-shared',
        'data-shared': String(!!state.result.shared), text: state.result.message
      }));
    }
    box.replaceChildren(...parts);
  }

  async function pollShare() {
    shareTimer = null;
    let state;
    try {
      state = await api('GET', '/share');
    } catch (e) {
      $('share-result').hidden = false;
      $('share-result').replaceChildren(el('p', { className: 'error', text: 'The share\'s progress could not be read: ' + describe(e) }));
      if (!refused && shareWasRunning) {
        shareTimer = setTimeout(pollShare, SHARE_POLL_MS);
      }
      return;
    }
    showShare(state);
    if (state.running) {
      shareWasRunning = true;
      setShareButtons(true);
      shareTimer = setTimeout(pollShare, SHARE_POLL_MS);
    } else if (shareWasRunning) {
      shareWasRunning = false;
      setShareButtons(false);
      loadRows();
      loadHazards();
      loadBackends();
    }
  }

  async function shareServer(name) {
    const ok = await confirmAction('Share ' + name + '?',
      'This does what cotenant share ' + name + ' does: it measures the server if it has no measurement, probes its '
        + 'whole surface (starts it several times and calls each of its tools from two callers, in a sandbox when '
        + 'there is one), and, when nothing crosses between the callers, registers it as shared, at most 2 calls at '
        + 'once. A hazard the probe finds is recorded, and the server then stays dedicated.', [], 'Share ' + name);
    if (!ok) {
      return;
    }
    setShareButtons(true);
    try {
      showShare(await api('POST', '/share', { server: name }));
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'share_running')) {
        setShareButtons(false);
        $('share-result').hidden = false;
        $('share-result').replaceChildren(el('p', { className: 'error', text: name + ' was not shared: ' + describe(e) }));
        return;
      }
    }
    shareWasRunning = true;
    if (shareTimer) {
      clearTimeout(shareTimer);
    }
    shareTimer = setTimeout(pollShare, SHARE_POLL_MS);
  }

  // ---- measure ---------------------------------------------------------------------------

  function showProgress(p) {
    const panel = $('measure');
    const running = !!p.running;
    const done = p.done || 0;
    const total = p.total || 0;
    panel.dataset.running = String(running);
    panel.dataset.done = String(done);
    panel.dataset.total = String(total);
    const bar = $('measure-progress');
    bar.max = Math.max(total, 1);
    bar.value = Math.min(done, Math.max(total, 1));
    bar.textContent = done + ' of ' + total;
    $('measure-start').disabled = running;
    $('measure-cancel').disabled = !running;
    let text;
    if (running) {
      text = 'Measuring: ' + done + ' of ' + total + ' done, ' + (p.measured || 0) + ' measured.';
    } else if (!p.startedAt) {
      text = 'No measurement has run since the daemon started.';
    } else if (p.error) {
      text = 'The measurement failed: ' + p.error;
    } else if (p.cancelled) {
      text = 'Cancelled after ' + done + ' of ' + total + ' (' + (p.measured || 0) + ' measured).';
    } else {
      text = 'Done: ' + done + ' of ' + total + ', ' + (p.measured || 0) + ' measured'
        + (p.finishedAt ? ', finished ' + new Date(p.finishedAt).toLocaleTimeString() : '') + '.';
    }
    $('measure-status').textContent = text;
    const current = p.current || [];
    $('measure-current').textContent = running && current.length > 0 ? 'Now measuring: ' + current.join(', ') : '';
  }

  async function pollMeasure() {
    measureTimer = null;
    let p;
    try {
      p = await api('GET', '/measure');
    } catch (e) {
      $('measure-status').textContent = 'The progress could not be read: ' + describe(e);
      if (!refused && measureWasRunning) {
        measureTimer = setTimeout(pollMeasure, MEASURE_POLL_MS);
      }
      return;
    }
    showProgress(p);
    if (p.running) {
      measureWasRunning = true;
      measureTimer = setTimeout(pollMeasure, MEASURE_POLL_MS);
    } else if (measureWasRunning) {
      measureWasRunning = false;
      loadRows();
      loadHazards();
    }
  }

  async function startMeasure() {
    $('measure-start').disabled = true;
    try {
      const p = await api('POST', '/measure', {});
      showProgress(p);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'measure_running')) {
        $('measure-start').disabled = false;
        $('measure-status').textContent = 'The measurement did not start: ' + describe(e);
        return;
      }
      $('measure-status').textContent = 'A measurement runs already; following it.';
    }
    measureWasRunning = true;
    if (measureTimer) {
      clearTimeout(measureTimer);
    }
    measureTimer = setTimeout(pollMeasure, MEASURE_POLL_MS);
  }

  async function cancelMeasure() {
    $('measure-cancel').disabled = true;
    try {
      showProgress(await api('DELETE', '/measure'));
    } catch (e) {
      $('measure-status').textContent = e instanceof ApiError && e.status === 404
        ? 'No measurement runs.' : 'The measurement could not be cancelled: ' + describe(e);
    }
  }

  // ---- backends --------------------------------------------------------------------------

  function bytes(n) {
    if (n === null || n === undefined) {
      return '–';
    }
    if (n < 1024) {
      return n + ' B';
    }
    if (n < 1024 * 1024) {
      return (n / 1024).toFixed(0) + ' KiB';
    }
    if (n < 1024 * 1024 * 1024) {
      return (n / (1024 * 1024)).toFixed(1) + ' MiB';
    }
    return (n / (1024 * 1024 * 1024)).toFixed(2) + ' GiB';
  }

  function count(n, what) {
    return n + ' ' + what + (n === 1 ? '' : what.endsWith('s') ? 'es' : 's');
  }

  // What routing through Cotenant costs in all, against each client running its servers: every part
  // is shown, and a part whose memory is missing is named rather than left out of a total.
  function showCost(cost, t) {
    const totals = $('backend-totals');
    totals.dataset.backends = String(t.backends || 0);
    if (!cost) {
      $('total-processes').textContent = (t.backends || 0) + ' backends (this daemon does not say what its shims and itself take)';
      $('total-memory').textContent = bytes(t.rssBytes || 0) + ' for the backends alone';
      $('parts-processes').textContent = '';
      $('parts-memory').textContent = '';
      $('total-verdict').textContent = '';
      return;
    }
    const now = cost.now;
    const direct = cost.direct;
    totals.dataset.nowProcesses = String(now.processes);
    totals.dataset.directProcesses = String(direct.processes);
    totals.dataset.memoryKnown = String(now.rssBytes !== null && direct.rssBytes !== null);
    $('total-processes').textContent = now.processes + ' now vs ' + direct.processes + ' directly';
    $('parts-processes').textContent = '(' + count(now.backends.processes, 'backend') + ' + ' + count(now.shims.processes, 'shim')
      + ' + ' + count(now.daemon.processes, 'daemon process') + ')';
    const part = (p, what) => what + ' ' + bytes(p.rssBytes) + (p.unread > 0 ? ' (' + (p.processes - p.unread) + ' of ' + p.processes + ' read)' : '');
    $('total-memory').textContent = (now.rssBytes === null ? 'not known in total' : bytes(now.rssBytes) + ' now')
      + ' vs ' + (direct.rssBytes === null ? 'not known' : bytes(direct.rssBytes)) + ' directly';
    $('parts-memory').textContent = '(' + part(now.backends, 'backends') + ' + ' + part(now.shims, 'shims') + ' + '
      + part(now.daemon, 'daemon') + ')';
    const saved = cost.saved;
    let verdict;
    if (direct.processes === 0) {
      verdict = 'No client session is served now.';
    } else if (saved.processes > 0) {
      verdict = 'Sharing saves ' + count(saved.processes, 'process');
    } else if (saved.processes < 0) {
      verdict = 'Routing through Cotenant costs ' + count(-saved.processes, 'process') + ' more than running each client\'s servers directly';
    } else {
      verdict = 'As many processes as running each client\'s servers directly';
    }
    if (direct.processes > 0) {
      if (saved.rssBytes === null) {
        verdict += '; what it saves in memory is not known (below).';
      } else if (saved.rssBytes >= 0) {
        verdict += (saved.processes > 0 ? ' and ' : '; it saves ') + bytes(saved.rssBytes) + ' of memory.';
      } else {
        verdict += (saved.processes < 0 ? ' and ' : '; it costs ') + bytes(-saved.rssBytes) + ' more memory.';
      }
    }
    $('total-verdict').textContent = verdict;
    const missing = $('cost-missing');
    const items = (cost.missing || []).map((m) => el('li', { text: 'Not counted in full: ' + m + '.' }));
    missing.replaceChildren(...items);
    missing.hidden = items.length === 0;
  }

  async function loadBackends() {
    if (backendsInFlight || refused) {
      return;
    }
    backendsInFlight = true;
    let data;
    try {
      data = await api('GET', '/backends');
    } catch (e) {
      $('backends-status').textContent = 'The backends could not be read: ' + describe(e);
      return;
    } finally {
      backendsInFlight = false;
    }
    const backends = data.backends || [];
    const t = data.totals || {};
    showCost(data.cost, t);
    $('total-sessions').textContent = String(t.sessions || 0);
    backendsByServer = new Map();
    for (const b of backends) {
      if (!backendsByServer.has(b.server)) {
        backendsByServer.set(b.server, []);
      }
      backendsByServer.get(b.server).push(b);
    }
    updateRunning();
    $('backends-body').replaceChildren(...backends.map((b) => {
      const placement = el('td', { className: 'placement', text: b.placement });
      if (b.forced) {
        placement.append(' ', el('span', { className: 'forced', text: 'forced' }));
      }
      return el('tr', {
        'data-server': b.server, 'data-placement': b.placement, 'data-sessions': b.sessions, title: 'connection ' + b.key
      }, [
        el('th', { scope: 'row', text: b.server }),
        placement,
        el('td', { text: b.state }),
        el('td', { className: 'sessions', text: String(b.sessions) }),
        el('td', { text: b.pid === null || b.pid === undefined ? '–' : String(b.pid) }),
        el('td', { text: bytes(b.rssBytes) }),
        el('td', { text: String(b.calls) }),
        el('td', { className: 'reason', text: b.reason || '–' })
      ]);
    }));
    $('backends-status').textContent = backends.length === 0
      ? 'No backend runs.'
      : backends.length + (backends.length === 1 ? ' backend' : ' backends') + ', as of ' + new Date().toLocaleTimeString() + '.';
  }

  // ---- hazards ---------------------------------------------------------------------------

  function pad(n, width) {
    return String(n).padStart(width || 2, '0');
  }

  // A time of the ledger (seconds since the epoch) as local time, ISO-like, its exact value in the title.
  function when(seconds) {
    if (typeof seconds !== 'number' || !(seconds > 0)) {
      return el('span', { className: 'time-unknown', text: 'at an unknown time' });
    }
    const d = new Date(seconds * 1000);
    const offset = -d.getTimezoneOffset();
    const zone = (offset >= 0 ? '+' : '-') + pad(Math.floor(Math.abs(offset) / 60)) + ':' + pad(Math.abs(offset) % 60);
    const local = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' '
      + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
    return el('time', {
      datetime: d.toISOString(), className: 'last-seen', 'data-seconds': String(seconds),
      title: seconds + ' s since the epoch (' + d.toISOString() + ')',
      text: local + ' (UTC' + zone + ')'
    });
  }

  async function loadHazards(note) {
    const status = $('hazards-status');
    let data;
    try {
      data = await api('GET', '/hazards');
    } catch (e) {
      status.textContent = 'The hazards could not be read: ' + describe(e);
      return;
    }
    const servers = (data && data.servers) || [];
    $('hazards-list').replaceChildren(...servers.map((s) => {
      const clear = el('button', { type: 'button', className: 'clear-hazards', 'data-server': s.name, text: 'Clear' });
      clear.setAttribute('aria-label', 'Clear the hazards of ' + s.name);
      clear.addEventListener('click', () => clearHazards(s.name));
      const identities = (s.identities || []).map((i) => el('li', {}, [
        el('span', { text: (i.codes || []).join(', ') }),
        ' — ' + i.count + (i.count === 1 ? ' time' : ' times') + ', last ',
        when(i.lastSeen),
        ' ',
        el('span', { className: 'identity', text: 'identity ' + i.identity })
      ]));
      return el('li', { 'data-server': s.name }, [
        el('div', { className: 'hazard-head' }, [el('strong', { text: s.name }), ' ', clear]),
        el('ul', {}, identities)
      ]);
    }));
    let text = servers.length === 0 ? 'No hazard is recorded.' : servers.length + (servers.length === 1 ? ' server has' : ' servers have') + ' recorded hazards.';
    if (data && data.incomplete) {
      text += ' The ledger could not be read completely: ' + data.incomplete;
    }
    status.textContent = (typeof note === 'string' ? note + ' ' : '') + text;
  }

  async function clearHazards(name) {
    const ok = await confirmAction('Clear the hazards of ' + name + '?',
      'Every hazard recorded against ' + name + ' is removed from the ledger, under every launch identity. '
        + 'It may then be routed or shared again if its verdict allows.', [], 'Clear');
    if (!ok) {
      return;
    }
    let note;
    try {
      const r = await api('DELETE', '/hazards/' + encodeURIComponent(name));
      note = r && r.cleared ? 'Cleared the hazards of ' + name + '.' : name + ' had no hazard to clear.';
    } catch (e) {
      $('hazards-status').textContent = 'The hazards of ' + name + ' were not cleared: ' + describe(e);
      return;
    }
    await loadHazards(note);
    loadRows();
  }

  // ---- start -----------------------------------------------------------------------------

  function start() {
    token = takeToken();
    $('rows-refresh').addEventListener('click', () => loadRows());
    $('route-selected').addEventListener('click', routeSelected);
    $('measure-start').addEventListener('click', startMeasure);
    $('measure-cancel').addEventListener('click', cancelMeasure);
    $('hazards-refresh').addEventListener('click', () => loadHazards());
    if (!token) {
      showAuthProblem('No token',
        'This page needs the daemon\'s token, and it was opened without one.');
      for (const b of document.querySelectorAll('main button')) {
        b.disabled = true;
      }
      return;
    }
    loadRows();
    loadHazards();
    loadBackends();
    measureWasRunning = false;
    api('GET', '/measure').then((p) => {
      showProgress(p);
      if (p.running) {
        measureWasRunning = true;
        measureTimer = setTimeout(pollMeasure, MEASURE_POLL_MS);
      }
    }).catch((e) => {
      $('measure-status').textContent = 'The progress could not be read: ' + describe(e);
    });
    api('GET', '/share').then((state) => {
      showShare(state);
      if (state.running) {
        shareWasRunning = true;
        setShareButtons(true);
        shareTimer = setTimeout(pollShare, SHARE_POLL_MS);
      }
    }).catch((e) => {
      $('share-result').hidden = false;
      $('share-result').replaceChildren(el('p', { className: 'error', text: 'The share\'s state could not be read: ' + describe(e) }));
    });
    backendsTimer = setInterval(loadBackends, BACKENDS_POLL_MS);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();

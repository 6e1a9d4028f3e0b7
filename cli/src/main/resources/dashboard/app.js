// The Cotenant dashboard: plain DOM, no framework, no request anywhere but this daemon's /api.
// The token arrives in the URL fragment (#token=...), which a browser never sends to a server; it
// is kept in sessionStorage (this tab only) and removed from the address bar at once.
'use strict';

(function () {
  const {
    $,
    ApiError,
    describe,
    el,
    confirmAction,
    yesNo,
    strengthBadge,
    reasonItem,
    sourceCell,
    nextStep,
    showShare,
    showProgress,
    showCost,
    backendRow,
    waitingItem,
    localTime,
    when
  } = window.CotenantViews;

  const TOKEN_KEY = 'cotenant.token';
  const MEASURE_POLL_MS = 500;
  const SHARE_POLL_MS = 500;
  const BACKENDS_POLL_MS = 3000;

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

  // ---- the confirmation dialog -----------------------------------------------------------

  // ---- servers ---------------------------------------------------------------------------

  function selectedServers() {
    return Array.from(document.querySelectorAll('#servers-body input.select-server:checked')).map((c) => c.value);
  }

  function updateSelection() {
    const n = selectedServers().length;
    $('route-selected').disabled = n === 0 || !daemonHasConfig;
    $('selection-count').textContent = n === 0 ? 'No server selected' : n === 1 ? '1 server selected' : n + ' servers selected';
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
    const problems = files.filter((f) => f.problem);
    let text;
    const parts = [];
    if (rows.length > 0) {
      parts.push(rows.length + (rows.length === 1 ? ' server' : ' servers') + ', as of ', localTime(Date.now()), '.');
      text = '';
    } else if (files.length === 0) {
      text = 'No server yet: the daemon was started without a configuration file, and no client has connected through '
        + 'a shim (cotenant connect NAME CONFIG) since it started. Its servers appear here once one does.';
    } else {
      text = 'The configuration files name no server: ' + files.map((f) => f.path).join(', ') + '.';
    }
    for (const f of problems) {
      text += ' ' + f.path + ' cannot be read now (' + f.problem + '); its servers are left out.';
    }
    status.replaceChildren(...parts, text);
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
    const servers = data.servers || [];
    $('waiting-list').replaceChildren(...servers.map(waitingItem));
    $('waiting-list').hidden = servers.length === 0;
    $('backends-body').replaceChildren(...backends.map(backendRow));
    if (backends.length === 0) {
      $('backends-status').textContent = 'No backend runs.';
    } else {
      $('backends-status').replaceChildren(backends.length + (backends.length === 1 ? ' backend' : ' backends') + ', as of ',
        localTime(Date.now()), '.');
    }
  }

  // ---- hazards ---------------------------------------------------------------------------

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

// The Cotenant dashboard's views: what a row, a step, a cost or a time looks like, and the
// confirmation dialog. No state and no request: app.js, which holds both, takes these from
// window.CotenantViews.
'use strict';

window.CotenantViews = (function () {
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
    deferred_answer_changed: ['A session was answered its start from the records, and the server, once started, answered otherwise; its sessions now start it at once. A note about deferring that gates nothing.', 'docs/pool.md#deferred-backends'],
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

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
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
      text = 'Done: ' + done + ' of ' + total + ', ' + (p.measured || 0) + ' measured';
    }
    const finished = !running && p.startedAt && !p.error && !p.cancelled && p.finishedAt ? Date.parse(p.finishedAt) : NaN;
    if (Number.isNaN(finished)) {
      $('measure-status').textContent = text + (running || !p.startedAt || p.error || p.cancelled ? '' : '.');
    } else {
      $('measure-status').replaceChildren(text + ', finished ', localTime(finished), '.');
    }
    const current = p.current || [];
    $('measure-current').textContent = running && current.length > 0 ? 'Now measuring: ' + current.join(', ') : '';
  }

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
  // is shown in proportional memory (Pss), and a part whose memory is missing is named rather than
  // left out of a total.
  function showCost(cost, t) {
    const totals = $('backend-totals');
    totals.dataset.backends = String(t.backends || 0);
    if (!cost) {
      $('total-processes').textContent = (t.backends || 0) + ' backends (this daemon does not say what its shims and itself take)';
      $('total-memory').textContent = bytes(t.pssBytes !== undefined ? t.pssBytes : t.rssBytes || 0) + ' for the backends alone';
      $('parts-processes').textContent = '';
      $('parts-memory').textContent = '';
      $('total-verdict').textContent = '';
      $('direct-servers').replaceChildren();
      return;
    }
    const now = cost.now;
    const direct = cost.direct;
    totals.dataset.nowProcesses = String(now.processes);
    totals.dataset.directProcesses = String(direct.processes);
    totals.dataset.memoryKnown = String(now.pssBytes !== null && direct.pssBytes !== null);
    totals.dataset.nowPss = now.pssBytes === null ? '' : String(now.pssBytes);
    totals.dataset.directPss = direct.pssBytes === null ? '' : String(direct.pssBytes);
    $('total-processes').textContent = now.processes + ' now vs ' + direct.processes + ' directly';
    $('parts-processes').textContent = '(' + count(now.backends.processes, 'process') + ' of ' + count(t.backends || 0, 'backend')
      + ' + ' + count(now.shims.processes, 'shim') + ' + ' + count(now.daemon.processes, 'daemon process') + ')';
    const part = (p, what) => what + ' ' + bytes(p.pssBytes) + (p.unread > 0 ? ' (' + (p.processes - p.unread) + ' of ' + p.processes + ' read)' : '');
    $('total-memory').textContent = (now.pssBytes === null ? 'not known in total' : bytes(now.pssBytes) + ' now')
      + ' vs ' + (direct.pssBytes === null ? 'not known' : bytes(direct.pssBytes)) + ' directly';
    $('parts-memory').textContent = '(' + part(now.backends, 'backends') + ' + ' + part(now.shims, 'shims') + ' + '
      + part(now.daemon, 'daemon') + ')';
    $('direct-servers').replaceChildren(...(direct.servers || []).map(directServer));
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
      if (saved.pssBytes === null) {
        verdict += '; what it saves in memory is not known (below).';
      } else if (saved.pssBytes >= 0) {
        verdict += (saved.processes > 0 ? ' and ' : '; it saves ') + bytes(saved.pssBytes) + ' of memory.';
      } else {
        verdict += (saved.processes < 0 ? ' and ' : '; it costs ') + bytes(-saved.pssBytes) + ' more memory.';
      }
    }
    $('total-verdict').textContent = verdict;
    const missing = $('cost-missing');
    const items = (cost.missing || []).map((m) => el('li', { text: 'Not counted in full: ' + m + '.' }));
    missing.replaceChildren(...items);
    missing.hidden = items.length === 0;
  }

  // How one server's sessions are estimated directly: each its own copy's private memory, the
  // pages the copies share once, and where those figures come from.
  function directServer(s) {
    const item = el('li', { 'data-server': s.server, 'data-figures': s.figures, 'data-pss': s.pssBytes === null ? '' : String(s.pssBytes) });
    const sessions = count(s.sessions, 'session') + (s.unattached > 0 ? ' (' + s.unattached + ' not attached to a backend yet)' : '');
    item.append(el('strong', { text: s.server }), ': ' + sessions);
    if (s.figures === 'unknown') {
      item.append(s.sessions > 0 ? ', not known: no backend of it has been read since the daemon started.' : '.');
      return item;
    }
    item.append(' × ' + bytes(s.ussBytesEach) + ' of its own (' + count(s.processesEach, 'process') + ' each) + '
      + bytes(s.sharedPssBytes) + ' shared once = ' + bytes(s.pssBytes) + ' directly; ');
    if (s.figures === 'now') {
      item.append('read of ' + (s.copies === 1 ? 'its backend' : 'its ' + s.copies + ' backends') + ' now.');
    } else {
      item.append('no backend of it is up: as last read, ', localTime(s.readAt), '.');
    }
    return item;
  }

  // One row of the backends table: its memory in Pss (Uss and Rss in the title), since when it is up.
  function backendRow(b) {
    const placement = el('td', { className: 'placement', text: b.placement });
    if (b.forced) {
      placement.append(' ', el('span', { className: 'forced', text: 'forced' }));
    }
    const memory = el('td', {
      className: 'memory', text: bytes(b.pssBytes),
      title: b.pssBytes === null || b.pssBytes === undefined ? 'not read'
        : 'Pss of its ' + count(b.processes, 'process') + '; Uss ' + bytes(b.ussBytes) + ', Rss ' + bytes(b.rssBytes)
    });
    const up = el('td', { className: 'started' });
    if (typeof b.startedAt === 'number') {
      up.append(localTime(b.startedAt, 'UTC: ' + new Date(b.startedAt).toISOString() + '; up ' + duration(b.uptimeMs)));
    } else {
      up.textContent = '–';
    }
    return el('tr', {
      'data-server': b.server, 'data-placement': b.placement, 'data-sessions': b.sessions, title: 'connection ' + b.key
    }, [
      el('th', { scope: 'row', text: b.server }),
      placement,
      el('td', { text: b.state }),
      el('td', { className: 'sessions', text: String(b.sessions) }),
      el('td', { text: b.pid === null || b.pid === undefined ? '–' : String(b.pid) }),
      memory,
      up,
      el('td', { text: String(b.calls) }),
      el('td', { className: 'reason', text: b.reason || '–' })
    ]);
  }

  // A length of time in the largest units that say it: 3 h 12 min, 4 min 5 s, 9 s.
  function duration(ms) {
    const s = Math.max(0, Math.floor((ms || 0) / 1000));
    if (s < 60) {
      return s + ' s';
    }
    if (s < 3600) {
      return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    }
    if (s < 86400) {
      return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    }
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }

  function pad(n, width) {
    return String(n).padStart(width || 2, '0');
  }

  // A moment (milliseconds since the epoch) in the browser's local time, ISO-like with its offset
  // from UTC; the UTC time in its title (or the title given).
  function localTime(ms, title) {
    const d = new Date(ms);
    const offset = -d.getTimezoneOffset();
    const zone = (offset >= 0 ? '+' : '-') + pad(Math.floor(Math.abs(offset) / 60)) + ':' + pad(Math.abs(offset) % 60);
    const local = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' '
      + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
    return el('time', { datetime: d.toISOString(), title: title || 'UTC: ' + d.toISOString(), text: local + ' (UTC' + zone + ')' });
  }

  // A time of the ledger (seconds since the epoch) as local time, its exact value in the title.
  // Per server: sessions waiting on a deferred backend (no process yet) and why, and those that
  // started theirs at their initialize, and why not deferred.
  function waitingItem(s) {
    const parts = [s.server + ': '];
    if (s.waiting > 0) {
      parts.push(count(s.waiting, 'session') + ' of ' + s.sessions + ' waiting on a deferred backend (no process runs for '
        + (s.waiting === 1 ? 'it' : 'them') + ' until a first call): ' + s.deferred);
    }
    if (s.not_deferred) {
      parts.push((s.waiting > 0 ? '; ' : '') + count(s.attached, 'session') + ' started at initialize: ' + s.not_deferred);
    } else if (s.waiting === 0) {
      parts.push(count(s.attached, 'session') + ' attached, started at a first call');
    }
    return el('li', { className: 'waiting', 'data-server': s.server }, [parts.join('')]);
  }

  function when(seconds) {
    if (typeof seconds !== 'number' || !(seconds > 0)) {
      return el('span', { className: 'time-unknown', text: 'at an unknown time' });
    }
    const t = localTime(seconds * 1000, seconds + ' s since the epoch (' + new Date(seconds * 1000).toISOString() + ')');
    t.className = 'last-seen';
    t.dataset.seconds = String(seconds);
    return t;
  }

  return Object.freeze({
    ARCH, REASONS, STRENGTHS, $, ApiError, describe, el, confirmAction, yesNo, strengthBadge, reasonItem, sourceCell, reasonText, nextStep, stepItem, showShare, showProgress, bytes, count, showCost, backendRow, waitingItem, pad, localTime, when
  });
})();

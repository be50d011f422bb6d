// The console's page script: keeps the map's colours live from the
// server-sent state events. No inline script is allowed by the page's
// Content-Security-Policy; this file is all there is.
'use strict';
(function () {
  // live follows a server-sent event stream: on(name, data) for each event
  // of names, and for "open" and "error". The console's tabs share one
  // stream per URL through a shared worker (streams.js), so that open
  // tabs do not run out of the browser's connections to the console;
  // without shared workers, each tab opens its own. It returns whether the
  // stream is shared: a tab joining a shared stream gets only what changes
  // from then on (and the last data of each name in replay).
  function live(url, names, replay, on) {
    if (window.SharedWorker) {
      try {
        const w = new SharedWorker('/static/streams.js', { name: 'netmcp-streams' });
        w.port.addEventListener('message', (e) => {
          if (e.data && e.data.url === url) on(e.data.name, e.data.data);
        });
        w.port.start();
        w.port.postMessage({ open: url, names, replay });
        window.addEventListener('pagehide', () => w.port.postMessage({ close: url }));
        window.addEventListener('pageshow', (e) => {
          if (e.persisted) w.port.postMessage({ open: url, names, replay });
        });
        return true;
      } catch (err) {
        // fall back to a stream of this tab's own
      }
    }
    const es = new EventSource(url);
    for (const n of ['open', 'error', ...names]) es.addEventListener(n, (e) => on(n, e.data));
    return false;
  }

  // A run's page: its progress lines as they come, then its report.
  const runEl = document.getElementById('run');
  if (runEl && !runEl.dataset.done) {
    const list = document.getElementById('run-lines');
    const status = document.getElementById('run-status');
    const link = document.getElementById('run-report');
    let got = 0; // lines of this connection: each starts at the first line
    const rs = new EventSource('/runs/' + encodeURIComponent(runEl.dataset.run) + '/events');
    rs.addEventListener('open', () => { got = 0; });
    rs.addEventListener('line', (e) => {
      got++;
      if (got <= list.children.length) return; // shown already
      const li = document.createElement('li');
      li.textContent = JSON.parse(e.data);
      list.append(li);
    });
    rs.addEventListener('done', (e) => {
      rs.close();
      const d = JSON.parse(e.data);
      runEl.dataset.done = 'yes';
      if (d.error) {
        status.replaceChildren();
        const span = document.createElement('span');
        span.className = 'error';
        span.textContent = 'Failed: ' + d.error;
        status.append(span);
        return;
      }
      status.textContent = 'Done.';
      if (d.report) {
        const a = link.querySelector('a');
        a.href = '/report/' + encodeURIComponent(d.report);
        link.hidden = false;
        location.assign(a.href);
      }
    });
  }

  // A device's page: its syslog tail, live.
  const syslog = document.getElementById('syslog');
  if (syslog && syslog.dataset.device) {
    const logErr = document.getElementById('syslog-error');
    const url = '/device/' + encodeURIComponent(syslog.dataset.device) + '/events';
    live(url, ['syslog', 'syslog-error'], ['syslog'], (name, data) => {
      if (name === 'syslog') {
        const lines = JSON.parse(data);
        const atEnd = syslog.scrollTop + syslog.clientHeight >= syslog.scrollHeight - 4;
        syslog.textContent = lines.length ? lines.join('\n') + '\n' : '';
        if (atEnd) syslog.scrollTop = syslog.scrollHeight;
        if (logErr) logErr.hidden = true;
      } else if (name === 'syslog-error' && logErr) {
        logErr.textContent = JSON.parse(data);
        logErr.hidden = false;
      }
    });
  }

  const map = document.getElementById('map');
  if (!map) return;
  const status = document.getElementById('status');
  const problems = document.getElementById('problems');
  const nodes = {}; // name -> {s, n}
  const links = {}; // id -> {s, a, b, n}
  let version = 0;

  function say(text) {
    if (status) status.textContent = text;
  }

  function setState(el, s) {
    for (const c of Array.from(el.classList)) {
      if (c.startsWith('s-')) el.classList.remove(c);
    }
    el.classList.add('s-' + s);
  }

  function setTitle(el, text) {
    const t = el.querySelector('title');
    if (t) t.textContent = text;
  }

  function applyLink(id, l) {
    links[id] = l;
    const g = document.getElementById('link-' + id);
    if (!g) return;
    setState(g, l.s);
    const ea = g.querySelector('.end-a'), eb = g.querySelector('.end-b');
    if (ea) setState(ea, l.a);
    if (eb) setState(eb, l.b);
    const ends = g.dataset.a + ' to ' + g.dataset.b;
    setTitle(g, ends + ': ' + l.s + (l.n ? ' (' + l.n + ')' : ''));
  }

  function applyNode(name, n) {
    nodes[name] = n;
    const a = document.getElementById('node-' + name);
    if (!a) return;
    setState(a, n.s);
    const kind = Array.from(a.classList).find((c) => c.startsWith('k-')) || 'k-router';
    const faulty = a.classList.contains('fault') ? ', found faulty' : '';
    a.setAttribute('aria-label', name + ', ' + kind.slice(2) + ', ' + n.s + (n.n ? ', ' + n.n : '') + faulty);
    setTitle(a, name + ': ' + n.s + (n.n ? ' (' + n.n + ')' : ''));
  }

  function renderProblems() {
    if (!problems) return; // a report's page has no list of problems
    const items = [];
    for (const [name, n] of Object.entries(nodes)) {
      if (n.s === 'down' || n.s === 'warn') items.push([n.s, name + ': ' + (n.n || n.s)]);
    }
    for (const [id, l] of Object.entries(links)) {
      if (l.s === 'down' || l.s === 'warn' || l.s === 'admin-down') {
        const g = document.getElementById('link-' + id);
        const what = g ? g.dataset.a + ' – ' + g.dataset.b : id;
        const why = l.s === 'warn' ? (l.n || 'warn') : l.s.replace('-', ' ');
        items.push([l.s === 'warn' ? 'warn' : 'down', what + ': ' + why]);
      }
    }
    problems.replaceChildren();
    if (items.length === 0) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = 'none';
      problems.append(li);
      return;
    }
    items.sort((x, y) => x[1].localeCompare(y[1]));
    for (const [s, text] of items) {
      const li = document.createElement('li');
      li.className = 's-' + s;
      li.textContent = text;
      problems.append(li);
    }
  }

  function apply(msg) {
    version = msg.v;
    for (const [id, l] of Object.entries(msg.links || {})) applyLink(id, l);
    for (const [name, n] of Object.entries(msg.nodes || {})) applyNode(name, n);
    renderProblems();
    say('Live · updated ' + new Date().toLocaleTimeString());
    map.dataset.version = String(version);
  }

  async function relayout() {
    const r = await fetch('/map.svg', { credentials: 'same-origin' });
    if (!r.ok) return;
    map.innerHTML = await r.text();
    const s = await fetch('/api/state', { credentials: 'same-origin' });
    if (s.ok) apply(await s.json());
  }

  let fetched = false; // the whole state read since the stream was joined
  const shared = live('/events', ['state', 'layout'], [], (name, data) => {
    if (name === 'state') apply(JSON.parse(data));
    else if (name === 'layout') relayout();
    else if (name === 'open') {
      say('Live');
      // A tab joining a shared stream gets only the changes from now
      // on: read the whole state once, unless a change came first.
      if (shared && !fetched) {
        fetched = true;
        fetch('/api/state', { credentials: 'same-origin' }).then((r) => (r.ok ? r.json() : null)).then((m) => {
          if (m && m.v >= version) apply(m);
        }).catch(() => {});
      }
    } else if (name === 'error') say('Reconnecting…');
  });
})();

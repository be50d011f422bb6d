// The console's shared worker: one server-sent event stream per URL for
// all the console's tabs of a browser. A browser opens at most six
// HTTP/1.1 connections to a host, and each open stream holds one: without
// sharing, a seventh tab would wait for a free connection for ever.
//
// A tab posts {open: URL, names: [...], replay: [...]} to follow a stream
// and {close: URL} when it goes; it gets {url, name, data} for each event
// of the names it asked for, and "open" and "error" as the stream
// connects or fails. The last data of each name in replay is sent again
// to a tab that joins a stream already open (use it for events that carry
// the whole of something, not a change).
'use strict';

const streams = new Map(); // url -> {es, ports: Map port -> {names, replay}, last: Map name -> data}

function deliver(s, url, name, data) {
  for (const [port, want] of s.ports) {
    if (name === 'open' || name === 'error' || want.names.has(name)) port.postMessage({ url, name, data });
  }
}

function listen(s, url, name) {
  if (s.heard.has(name)) return;
  s.heard.add(name);
  s.es.addEventListener(name, (e) => {
    s.last.set(name, e.data);
    deliver(s, url, name, e.data);
  });
}

function follow(port, url, names, replay) {
  let s = streams.get(url);
  if (!s) {
    s = { es: new EventSource(url), ports: new Map(), last: new Map(), heard: new Set() };
    streams.set(url, s);
    s.es.addEventListener('open', () => deliver(s, url, 'open'));
    s.es.addEventListener('error', () => deliver(s, url, 'error'));
  }
  s.ports.set(port, { names: new Set(names), replay: new Set(replay) });
  for (const n of names) listen(s, url, n);
  if (s.es.readyState === EventSource.OPEN) port.postMessage({ url, name: 'open' });
  for (const n of replay) {
    if (s.last.has(n)) port.postMessage({ url, name: n, data: s.last.get(n) });
  }
}

function leave(port, url) {
  const s = streams.get(url);
  if (!s) return;
  s.ports.delete(port);
  if (s.ports.size === 0) {
    s.es.close();
    streams.delete(url);
  }
}

self.addEventListener('connect', (e) => {
  const port = e.ports[0];
  port.addEventListener('message', (m) => {
    const msg = m.data || {};
    // Only the console's own streams: a path on this origin.
    if (typeof msg.open === 'string' && msg.open.startsWith('/')) {
      follow(port, msg.open, Array.isArray(msg.names) ? msg.names : [], Array.isArray(msg.replay) ? msg.replay : []);
    } else if (typeof msg.close === 'string') {
      leave(port, msg.close);
    }
  });
  port.start();
});

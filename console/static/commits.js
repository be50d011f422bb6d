// The approvals page's confirmed commits: their countdown, live from the
// server-sent "commits" events (the list, with the seconds left, every
// second and at each change). No inline script is allowed by the page's
// Content-Security-Policy; this file is all the page adds.
'use strict';
(function () {
  const table = document.getElementById('commits');
  if (!table) return;
  const body = table.querySelector('tbody');
  const empty = document.getElementById('commits-empty');
  const status = document.getElementById('commits-status');
  const csrf = table.dataset.csrf || '';

  function form(device, action, label, cls) {
    const f = document.createElement('form');
    f.method = 'post';
    f.action = '/commits/' + encodeURIComponent(device) + '/' + action;
    const h = document.createElement('input');
    h.type = 'hidden';
    h.name = 'csrf';
    h.value = csrf;
    const b = document.createElement('button');
    b.type = 'submit';
    b.className = cls;
    b.textContent = label;
    b.setAttribute('aria-label', label + ' the commit on ' + device);
    f.append(h, b);
    return f;
  }

  function cell(text) {
    const td = document.createElement('td');
    td.textContent = text;
    return td;
  }

  function row(c) {
    const tr = document.createElement('tr');
    tr.id = 'commit-' + c.device;
    tr.dataset.device = c.device;
    tr.dataset.id = c.id;
    const left = document.createElement('td');
    const span = document.createElement('span');
    span.className = 'left';
    left.append(span, document.createTextNode(' of ' + c.window + ' s'));
    const actions = document.createElement('td');
    if (c.can) {
      const div = document.createElement('div');
      div.className = 'decide';
      div.append(form(c.device, 'confirm', 'Confirm now', 'approve'), form(c.device, 'cancel', 'Roll back now', 'decline'));
      actions.append(div);
    } else {
      actions.textContent = '—';
    }
    tr.append(cell(c.device), cell(c.id + (c.comment ? ' (' + c.comment + ')' : '')), cell(c.user), left, actions);
    return tr;
  }

  function render(list) {
    const keep = new Set();
    let added = 0;
    for (const c of list) {
      let tr = document.getElementById('commit-' + c.device);
      if (tr && tr.dataset.id !== c.id) {
        tr.remove();
        tr = null;
      }
      if (!tr) {
        tr = row(c);
        body.append(tr);
        added++;
      }
      keep.add(tr.id);
      const span = tr.querySelector('.left');
      span.dataset.left = String(c.left);
      span.textContent = c.left + ' s';
    }
    let removed = 0;
    for (const tr of Array.from(body.children)) {
      if (!keep.has(tr.id)) {
        tr.remove();
        removed++;
      }
    }
    table.hidden = list.length === 0;
    empty.hidden = list.length !== 0;
    if (added || removed) {
      status.textContent = list.length + ' confirmed commit' + (list.length === 1 ? '' : 's') + ' waiting.';
    }
  }

  const es = new EventSource('/commits/events');
  es.addEventListener('commits', (e) => render(JSON.parse(e.data)));
})();

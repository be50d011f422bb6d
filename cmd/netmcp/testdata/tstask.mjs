// tstask.mjs runs a long ping of `netmcp serve` as a task of the Tasks
// extension through the official @modelcontextprotocol/ext-tasks client
// over the official TypeScript SDK 2 client (@modelcontextprotocol/client),
// on protocol 2026-07-28 over HTTP, and cancels it once it is working. The
// SDK Client has no 2026-07-28 task path, so the extension's requests go
// through a raw dispatch (one POST per request), as ext-tasks requires. It
// prints one JSON line and exits 1 if anything fails. Used by
// TestTypeScriptClientTask.
//
//   node tstask.mjs URL DESTINATION
//
// MCP_CLIENT_DIR and MCP_TASKS_DIR are the directories of the packages.
import { pathToFileURL } from 'node:url';

const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(`${process.env.MCP_CLIENT_DIR}/dist/index.mjs`).href);
const { createTaskSessionFromClient } = await import(pathToFileURL(`${process.env.MCP_TASKS_DIR}/dist/client/index.js`).href);

const [url, destination] = process.argv.slice(2);
const out = {};
const framing = {
  protocolVersion: '2026-07-28',
  clientInfo: { name: 'netmcp-ts-task', version: '1.0.0' },
  clientCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

// nameFields are the params members the Mcp-Name header mirrors, by method.
const nameFields = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri',
  'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' };

// standardHeaders are the Mcp-Method and Mcp-Name headers a 2026-07-28
// POST carries (a value outside plain ASCII in the Base64 sentinel).
function standardHeaders(request) {
  const headers = { 'mcp-method': request.method };
  const name = request.params?.[nameFields[request.method]];
  if (typeof name === 'string') {
    const plain = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/.test(name) && !(name.startsWith('=?base64?') && name.endsWith('?='));
    headers['mcp-name'] = plain ? name : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  }
  return headers;
}

// rawDispatch posts one request (method and params) as a JSON-RPC
// message, with the headers the extension asks for (options.context), and
// returns its response.
let lastId = 0;
async function rawDispatch(body, options) {
  const request = { jsonrpc: '2.0', id: `task-${++lastId}`, ...body };
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' });
  for (const [k, v] of Object.entries(standardHeaders(request))) headers.set(k, v);
  for (const [k, v] of Object.entries(options?.context?.headers ?? {})) headers.set(k, v);
  const res = await fetch(url, { method: 'POST', signal: options?.signal, body: JSON.stringify(request), headers });
  const text = await res.text();
  let msg;
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    for (const line of text.split('\n')) {
      if (line.startsWith('data: ') && line.length > 6) {
        const m = JSON.parse(line.slice(6));
        if (m.id !== undefined && m.id === request.id) msg = m;
      }
    }
  } else {
    msg = JSON.parse(text);
  }
  if (!msg) throw new Error(`no response to ${request.method}: HTTP ${res.status} ${text}`);
  return msg.error ? { kind: 'error', error: msg.error } : { kind: 'result', result: msg.result };
}

const client = new Client({ name: 'netmcp-ts-task', version: '1.0.0' },
  { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } }, versionNegotiation: { mode: 'auto' } });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  const session = createTaskSessionFromClient(client, { endpointId: 'netmcp-ts-task', rawDispatch, v2RequestFraming: framing });
  const exec = await session.callTool('ping', { destination, count: 100, intervalMs: 10000 }, { task: { preference: 'require' } });
  out.kind = exec.kind;
  out.statuses = [];
  let cancelledAt = 0;
  const settled = await exec.settle({
    onEvent: async (ev) => {
      if (ev.type !== 'task') return;
      out.statuses.push(ev.task.status);
      if (ev.task.status === 'working' && ev.task.statusMessage && !cancelledAt) {
        out.statusMessage = ev.task.statusMessage;
        cancelledAt = Date.now();
        await exec.cancel();
      }
    },
  });
  out.outcome = settled.outcome.status;
  // The server's own view: tasks/get until the task is cancelled (a
  // generous bound; the time it took is reported, not asserted here).
  const meta = { 'io.modelcontextprotocol/protocolVersion': framing.protocolVersion,
    'io.modelcontextprotocol/clientCapabilities': framing.clientCapabilities, 'io.modelcontextprotocol/clientInfo': framing.clientInfo };
  for (const deadline = Date.now() + 30000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const r = await rawDispatch({ method: 'tasks/get', params: { taskId: exec.handle.taskId, _meta: meta } });
    out.serverStatus = r.kind === 'result' ? r.result.status : `error ${JSON.stringify(r.error)}`;
    if (out.serverStatus !== 'working') break;
  }
  out.cancelledMs = cancelledAt ? Date.now() - cancelledAt : null;
  await session.close?.();
  console.log(JSON.stringify(out));
  await client.close();
  process.exit(0);
} catch (err) {
  out.error = String(err?.stack ?? err);
  console.log(JSON.stringify(out));
  try { await client.close(); } catch {}
  process.exit(1);
}

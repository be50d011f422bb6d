// tslisten.mjs connects the official MCP TypeScript SDK 2 client
// (@modelcontextprotocol/client) in its default mode (protocol 2026-07-28,
// no session) to a server over HTTP and listens to one resource with
// subscriptions/listen (client.listen). Then, with "commit", it shuts the
// interface IFNAME down itself: network.yang.edit and network.commit, each
// approved through input_required (`netmcp serve`); with "wait", it prints
// {"listening":true} and waits for whoever runs it to change the resource.
// On the first notifications/resources/updated of the URI it closes the
// subscription and prints one JSON line; it exits 1 if anything fails.
// With "end", it prints {"listening":true} and waits for the subscription
// to end (the server stops), and prints how it ended.
// Used by TestTypeScriptClientListen.
//
//   node tslisten.mjs URL URI commit IFNAME
//   node tslisten.mjs URL URI wait
//   node tslisten.mjs URL URI end
//
// MCP_CLIENT_DIR is the directory of the installed package.
import { pathToFileURL } from 'node:url';

const dir = process.env.MCP_CLIENT_DIR;
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(`${dir}/dist/index.mjs`).href);

const [url, uri, mode, ifname] = process.argv.slice(2);
const client = new Client({ name: 'netmcp-ts-listen', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
const out = { asked: 0 };
client.setRequestHandler('elicitation/create', async () => {
  out.asked++;
  return { action: 'accept', content: { approve: true } };
});
let updated;
const update = new Promise((resolve) => { updated = resolve; });
client.setNotificationHandler('notifications/resources/updated', (n) => {
  if (n.params.uri === uri) updated(n.params);
});
const timeout = (ms, what) => new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms));
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  const sub = await client.listen({ resourceSubscriptions: [uri] });
  out.honored = sub.honoredFilter;
  if (mode === 'commit') {
    const path = `/openconfig-interfaces:interfaces/interface[name='${ifname}']/config/enabled`;
    const edit = await client.callTool({ name: 'network.yang.edit', arguments: { edit: [{ path, value: false }] } });
    if (edit.isError) throw new Error(`network.yang.edit: ${JSON.stringify(edit.content)}`);
    const commit = await client.callTool({ name: 'network.commit',
      arguments: { handle: edit.structuredContent?.handle, comment: 'shut from typescript' } });
    if (commit.isError) throw new Error(`network.commit: ${JSON.stringify(commit.content)}`);
    out.commit = commit.structuredContent?.status ?? null;
  } else {
    console.log(JSON.stringify({ listening: true }));
  }
  if (mode === 'end') {
    out.closed = await Promise.race([sub.closed, timeout(60000, 'end of the subscription')]);
    console.log(JSON.stringify(out));
    process.exit(0);
  }
  const params = await Promise.race([update, timeout(60000, `notifications/resources/updated of ${uri}`)]);
  out.update = { uri: params.uri, meta: params._meta ?? {} };
  await sub.close();
  out.closed = await Promise.race([sub.closed, timeout(10000, 'end of the subscription')]);
  console.log(JSON.stringify(out));
  await client.close();
  process.exit(0);
} catch (err) {
  out.error = String(err?.stack ?? err);
  console.log(JSON.stringify(out));
  try { await client.close(); } catch {}
  process.exit(1);
}

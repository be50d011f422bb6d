// tsclient.mjs connects the official MCP TypeScript SDK 2 client
// (@modelcontextprotocol/client) to `netmcp serve`, lists its resources and
// reads one, lists its tools and calls network.yang.get; it prints one JSON line describing the session and exits 1 if
// anything is refused. Used by TestTypeScriptClientRead.
//
//   node tsclient.mjs stdio NETMCP_BINARY ARGS...
//   node tsclient.mjs http URL
//
// MCP_CLIENT_DIR is the directory of the installed package; MCP_VERSION
// is the client's version negotiation: "2026-07-28" pins that revision,
// "auto" probes with server/discover and falls back to initialize, unset is
// the 2025 initialize handshake.
import { pathToFileURL } from 'node:url';

const dir = process.env.MCP_CLIENT_DIR;
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(`${dir}/dist/index.mjs`).href);
const { StdioClientTransport } = await import(pathToFileURL(`${dir}/dist/stdio.mjs`).href);

const [mode, target, ...rest] = process.argv.slice(2);
const transport = mode === 'stdio'
  ? new StdioClientTransport({ command: target, args: rest, stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(target));
const negotiation = process.env.MCP_VERSION === 'auto' ? { mode: 'auto' }
  : process.env.MCP_VERSION ? { mode: { pin: process.env.MCP_VERSION } } : undefined;
const client = new Client({ name: 'netmcp-ts-check', version: '1.0.0' }, { versionNegotiation: negotiation });
const out = { mode };
try {
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  const list = await client.listResources();
  out.resources = list.resources.map((r) => r.uri);
  const uri = 'network:///interfaces';
  if (!out.resources.includes(uri)) throw new Error(`${uri} not listed`);
  const res = await client.readResource({ uri });
  out.read = { uri, contents: res.contents.length, bytes: (res.contents[0]?.text ?? '').length };
  if (res.contents.length === 0) throw new Error('empty read');
  const tools = await client.listTools();
  out.tools = tools.tools.length;
  const call = await client.callTool({ name: 'network.yang.get',
    arguments: { path: '/openconfig-interfaces:interfaces', datastore: 'running' } });
  out.call = { isError: !!call.isError, structured: call.structuredContent != null };
  if (call.isError || !out.call.structured) throw new Error(`network.yang.get: ${JSON.stringify(call.content)}`);
  console.log(JSON.stringify(out));
  await client.close();
  process.exit(0);
} catch (err) {
  out.error = String(err?.stack ?? err);
  console.log(JSON.stringify(out));
  try { await client.close(); } catch {}
  process.exit(1);
}

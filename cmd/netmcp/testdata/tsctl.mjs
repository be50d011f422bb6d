// tsctl.mjs connects the official MCP TypeScript SDK 2 client
// (@modelcontextprotocol/client) to `netmcp controller serve` as an MCP host
// would: it lists the tools, lists the devices, calls a device's tool
// through call_device_tool and asks an intent (with a progress callback and
// a correlation id in _meta). It prints one JSON line describing what it got
// and exits 1 if anything was refused. Used by
// TestControllerServeTypeScriptClient.
//
//   node tsctl.mjs stdio NETMCP_BINARY ARGS...
//   node tsctl.mjs http URL
//
// MCP_CLIENT_DIR is the directory of the installed package; MCP_VERSION is
// the client's version negotiation ("auto", a pinned revision, or unset for
// the 2025 initialize handshake); MCP_INTENT is the intent asked;
// MCP_CORRELATION, when set, is sent as _meta["netmcp/correlationId"] of
// the ask call.
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
const client = new Client({ name: 'netmcp-ts-host', version: '1.0.0' }, { versionNegotiation: negotiation });
const out = { mode };
const structured = (res, what) => {
  if (res.isError) throw new Error(`${what}: isError: ${JSON.stringify(res.content)}`);
  if (!res.structuredContent) throw new Error(`${what}: no structuredContent`);
  return res.structuredContent;
};
try {
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  out.server = client.getServerVersion()?.name ?? null;

  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => t.name);

  const devs = structured(await client.callTool({ name: 'list_devices', arguments: {} }), 'list_devices');
  out.devices = devs.devices.map((d) => ({ name: d.name, state: d.state, tools: d.tools.length }));

  const hostname = structured(await client.callTool({
    name: 'call_device_tool',
    arguments: { device: 'r2', tool: 'network.yang.get', arguments: { path: '/openconfig-system:system/config/hostname' } },
  }), 'call_device_tool');
  out.hostname = hostname;

  // The SDK's own progress handler drops notifications read in the same
  // chunk as the result (notifications are dispatched in a microtask,
  // responses at once, so the call's handler is gone by then); this one
  // records every notification of the call's token. onprogress below
  // still makes the client send a progress token.
  const progress = [];
  client.setNotificationHandler('notifications/progress', (n) => progress.push(n.params.message ?? ''));
  const askParams = { name: 'ask', arguments: { intent: process.env.MCP_INTENT } };
  if (process.env.MCP_CORRELATION) askParams._meta = { 'netmcp/correlationId': process.env.MCP_CORRELATION };
  const ask = await client.callTool(askParams, {
    onprogress: () => {},
    timeout: 120000,
  });
  const rep = structured(ask, 'ask');
  out.report = {
    is_anomaly: rep.is_anomaly,
    faulty_devices: rep.faulty_devices,
    root_cause_name: rep.root_cause_name,
    correlation_id: rep.correlation_id,
    calls: rep.calls.length,
    diagnosis: rep.diagnosis,
  };
  out.text = ask.content?.[0]?.text ?? '';
  out.progress = progress;
  console.log(JSON.stringify(out));
  await client.close();
  process.exit(0);
} catch (err) {
  out.error = String(err?.stack ?? err);
  console.log(JSON.stringify(out));
  try { await client.close(); } catch {}
  process.exit(1);
}

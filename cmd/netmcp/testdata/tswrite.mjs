// tswrite.mjs connects the official MCP TypeScript SDK 2 client
// (@modelcontextprotocol/client) in its default mode to `netmcp serve` over
// HTTP, edits the candidate and commits it through the approval gate: the
// server answers input_required, the SDK asks its elicitation handler and
// repeats the call; between the two it reads network:///handles, which
// lists the edit's handle. It prints one JSON line and exits 1 if anything fails.
// Used by TestTypeScriptClientWrite.
//
//   node tswrite.mjs URL
//
// MCP_CLIENT_DIR is the directory of the installed package.
import { pathToFileURL } from 'node:url';

const dir = process.env.MCP_CLIENT_DIR;
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(`${dir}/dist/index.mjs`).href);

const [url] = process.argv.slice(2);
const client = new Client({ name: 'netmcp-ts-write', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
const out = { asked: 0 };
client.setRequestHandler('elicitation/create', async (request) => {
  out.asked++;
  out.prompt = request.params.message;
  return { action: 'accept', content: { approve: true } };
});
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  const lo = "/openconfig-interfaces:interfaces/interface[name='LoopBack100']";
  const edit = await client.callTool({ name: 'network.yang.edit', arguments: { edit: [{ path: lo,
    value: { config: { name: 'LoopBack100', type: 'iana-if-type:softwareLoopback', description: 'from typescript' } } }] } });
  if (edit.isError) throw new Error(`network.yang.edit: ${JSON.stringify(edit.content)}`);
  out.handle = edit.structuredContent?.handle ?? null;
  const listed = await client.readResource({ uri: 'network:///handles' });
  out.handlesText = listed.contents?.[0]?.text ?? null;
  const commit = await client.callTool({ name: 'network.commit', arguments: { handle: out.handle, comment: 'typescript' } });
  if (commit.isError) throw new Error(`network.commit: ${JSON.stringify(commit.content)}`);
  out.commit = commit.structuredContent?.status ?? null;
  const get = await client.callTool({ name: 'network.yang.get',
    arguments: { path: `${lo}/config/description`, datastore: 'running' } });
  out.description = get.structuredContent?.data ?? null;
  console.log(JSON.stringify(out));
  await client.close();
  process.exit(0);
} catch (err) {
  out.error = String(err?.stack ?? err);
  console.log(JSON.stringify(out));
  try { await client.close(); } catch {}
  process.exit(1);
}

// The official MCP TypeScript SDK's client against omnigraph-server (tests/mcp/sdk.sh drives it):
// Streamable HTTP with a bearer token, the handshake, tools/list, every stored read query of the
// cookbook's catalog called as a tool (parameters taken from the cookbook's seed), resources, and
// an actor without invoke_query that sees no stored-query tool and is refused one as unknown.
// Usage: node sdk_client.mjs URL TOKEN READER_TOKEN CATALOG.json SEED.jsonl OUT.jsonl
// Writes one line per call, {name, params, rows}, for sdk.sh to compare with direct runs.
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, readerToken, catalogPath, seedPath, outPath] = process.argv.slice(2);
const fail = (message) => {
  console.error(`FAIL: ${message}`);
  process.exit(1);
};

async function connect(bearer) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: 'omnigraph-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const catalog = JSON.parse(fs.readFileSync(catalogPath, 'utf8')).queries;
const seed = fs.readFileSync(seedPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
// A value for a string parameter: the first seed row's member of that name.
const valueFor = (name) => seed.find((r) => typeof r.data?.[name] === 'string')?.data[name];

const client = await connect(token);
if (client.getServerVersion()?.name !== 'omnigraph-server') fail('serverInfo.name');
if (!client.getServerCapabilities()?.tools) fail('no tools capability');
const { tools } = await client.listTools();
const byName = new Map(tools.map((t) => [t.name, t]));
for (const q of catalog) {
  if (!byName.has(q.tool_name)) fail(`stored query ${q.name} is not a tool`);
  const schema = byName.get(q.tool_name).inputSchema;
  for (const p of q.params) {
    if (!(p.name in schema.properties)) fail(`${q.name}: no schema for parameter ${p.name}`);
  }
}
for (const builtin of ['snapshot', 'schema_get', 'branches_list', 'query', 'mutate']) {
  if (!byName.has(builtin)) fail(`no built-in tool ${builtin}`);
}

const out = fs.createWriteStream(outPath);
let called = 0;
for (const q of catalog) {
  if (q.mutation) continue;
  const params = {};
  let runnable = true;
  for (const p of q.params) {
    if (p.nullable) continue;
    const v = p.kind === 'string' ? valueFor(p.name) : undefined;
    if (v === undefined) runnable = false;
    else params[p.name] = v;
  }
  if (!runnable) continue;
  const result = await client.callTool({ name: q.tool_name, arguments: params });
  if (result.isError) fail(`${q.name}: ${JSON.stringify(result.content)}`);
  const text = JSON.parse(result.content[0].text);
  if (JSON.stringify(text) !== JSON.stringify(result.structuredContent)) {
    fail(`${q.name}: text and structuredContent differ`);
  }
  out.write(JSON.stringify({ name: q.name, params, rows: result.structuredContent.rows }) + '\n');
  called += 1;
}
out.end();

const { resources } = await client.listResources();
if (!resources.some((r) => r.uri === 'omnigraph://schema')) fail('no omnigraph://schema');
const schema = await client.readResource({ uri: 'omnigraph://schema' });
if (!schema.contents[0].text.includes('node ')) fail('the schema resource has no node type');
await client.ping();
await client.close();

// An actor with read but no invoke_query: no stored-query tool, and calling one is unknown.
const reader = await connect(readerToken);
const readerTools = (await reader.listTools()).tools.map((t) => t.name);
if (catalog.some((q) => readerTools.includes(q.tool_name))) fail('reader sees a stored query');
if (!readerTools.includes('query')) fail('reader does not see query');
const first = catalog.find((q) => !q.mutation);
let refused = null;
try {
  await reader.callTool({ name: first.tool_name, arguments: {} });
} catch (e) {
  refused = e;
}
if (!refused || refused.code !== -32602 || !String(refused.message).includes(`Unknown tool: ${first.tool_name}`)) {
  fail(`reader's call of ${first.tool_name}: ${refused}`);
}
await reader.close();
console.log(`sdk client: ${tools.length} tools, ${called} stored queries called`);

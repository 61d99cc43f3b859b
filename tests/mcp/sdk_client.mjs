// The official MCP TypeScript SDK's client against omnigraph-server (tests/mcp/sdk.sh drives it):
// Streamable HTTP with a bearer token, the handshake, tools/list, and every stored query of the
// cookbook's catalog called as a tool, with parameter values derived from the cookbook's schema,
// query source and seed (tests/mcp/params.mjs).
//
//   reads:     every stored read, each parameter's candidates tried in order until a call
//              returns rows (at most 40 calls; else the first candidate's call is kept); the
//              resources; and an actor without invoke_query that sees no stored-query tool and
//              is refused a stored read as an unknown tool.
//   mutations: first the actor without invoke_query: no stored mutation listed, one called is
//              refused as an unknown tool and the graph head does not move; then every stored
//              mutation, in catalog order, once each (it must report a changed node or edge).
//
// A read that cannot run on the cookbook whatever its arguments is named in EXPECTED.json
// ({query: a part of its error}): its call must be a tool error saying that, and is kept as
// {name, params, error}; any other tool error fails, and so does a listed read that succeeds.
//
// Usage: node sdk_client.mjs reads|mutations URL TOKEN READER_TOKEN COOKBOOK_DIR CATALOG.json
//                            DATA.jsonl EXPECTED.json OUT.jsonl
// DATA.jsonl is what the graph was loaded with. Writes one line per kept call, {name, params,
// rows, tries} for a read and {name, params, result} for a mutation, for sdk.sh to compare with
// the same query run directly.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Seed, fits, mutationParams, parseQueries, parseSchema, readCandidates } from './params.mjs';

const [mode, url, token, readerToken, cookbook, catalogPath, dataPath, expectedPath, outPath] =
  process.argv.slice(2);
const fail = (message) => {
  console.error(`FAIL: ${message}`);
  process.exit(1);
};
if (mode !== 'reads' && mode !== 'mutations') fail(`mode ${mode}: reads or mutations`);
const MAX_TRIES = 40;

async function connect(bearer) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: 'omnigraph-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const catalog = JSON.parse(fs.readFileSync(catalogPath, 'utf8')).queries;
const types = parseSchema(fs.readFileSync(path.join(cookbook, 'schema.pg'), 'utf8'));
const queryDir = path.join(cookbook, 'queries');
const bodies = parseQueries(
  fs.readdirSync(queryDir).filter((f) => f.endsWith('.gq')).map((f) => fs.readFileSync(path.join(queryDir, f), 'utf8')),
);
const lines = fs.readFileSync(dataPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const seed = new Seed(types, lines);
const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
const bodyOf = (q) => bodies[q.name] ?? fail(`${q.name}: not found in ${queryDir}`);

// The structured result of a tool call (its text must be the same JSON); a tool error fails
// unless EXPECTED.json names the query and the error says what it gives.
async function call(client, q, args) {
  const result = await client.callTool({ name: q.tool_name, arguments: args });
  const want = expected[q.name];
  if (result.isError && !(want && String(result.structuredContent?.error).includes(want))) {
    fail(`${q.name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`);
  }
  if (want && !result.isError) fail(`${q.name}: expected to fail with "${want}" (EXPECTED.json), but it ran`);
  if (JSON.stringify(JSON.parse(result.content[0].text)) !== JSON.stringify(result.structuredContent)) {
    fail(`${q.name}: text and structuredContent differ`);
  }
  return result.structuredContent;
}

// Calls of argument sets for a stored read: the i-th candidate of every parameter.
function readArguments(q) {
  const lists = [];
  for (const p of q.params) {
    const found = readCandidates(seed, bodyOf(q), p.name);
    const usable = (found ?? [])
      .map((v) => (p.kind === 'list' && !Array.isArray(v) ? [v] : v))
      .filter((v) => fits(p, v));
    if (usable.length > 0) lists.push([p.name, usable]);
    else if (!p.nullable) {
      fail(`${q.name}: the seed gives no value for parameter ${p.name} (kind ${p.kind}); ` +
           'teach tests/mcp/params.mjs how the query uses it');
    }
  }
  const n = Math.min(MAX_TRIES, Math.max(1, ...lists.map(([, l]) => l.length)));
  return Array.from({ length: n }, (_, i) => Object.fromEntries(lists.map(([k, l]) => [k, l[i % l.length]])));
}

// The reader (read, no invoke_query) is refused TOOL as an unknown tool.
async function refusedAsUnknown(reader, tool) {
  let refused = null;
  try {
    await reader.callTool({ name: tool, arguments: {} });
  } catch (e) {
    refused = e;
  }
  if (!refused || refused.code !== -32602 || !String(refused.message).includes(`Unknown tool: ${tool}`)) {
    fail(`the reader's call of ${tool}: ${refused}`);
  }
}

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
const reader = await connect(readerToken);
const readerTools = (await reader.listTools()).tools.map((t) => t.name);
if (catalog.some((q) => readerTools.includes(q.tool_name))) fail('the reader sees a stored query');
if (!readerTools.includes('query')) fail('the reader does not see query');

const out = fs.createWriteStream(outPath);
let called = 0;
let calls = 0;
if (mode === 'reads') {
  for (const q of catalog.filter((e) => !e.mutation)) {
    const attempts = readArguments(q);
    let kept = null;
    for (const [i, args] of attempts.entries()) {
      const answer = await call(client, q, args);
      calls += 1;
      if (expected[q.name]) {
        kept = { name: q.name, params: args, error: answer };
        break;
      }
      const rows = answer.rows;
      if (i === 0 || rows.length > 0) kept = { name: q.name, params: args, rows, tries: i + 1 };
      if (rows.length > 0) break;
    }
    out.write(JSON.stringify(kept) + '\n');
    called += 1;
  }
  const { resources } = await client.listResources();
  if (!resources.some((r) => r.uri === 'omnigraph://schema')) fail('no omnigraph://schema');
  const schema = await client.readResource({ uri: 'omnigraph://schema' });
  if (!schema.contents[0].text.includes('node ')) fail('the schema resource has no node type');
  await client.ping();
  await refusedAsUnknown(reader, catalog.find((q) => !q.mutation).tool_name);
} else {
  const mutations = catalog.filter((e) => e.mutation);
  const head = async () => (await client.callTool({ name: 'snapshot', arguments: {} })).structuredContent;
  const before = JSON.stringify(await head());
  await refusedAsUnknown(reader, mutations[0].tool_name);
  if (JSON.stringify(await head()) !== before) fail('the graph moved after the reader\'s refused mutation');
  for (const q of mutations) {
    const params = mutationParams(seed, bodyOf(q), q);
    if (typeof params === 'string') fail(params);
    const result = await call(client, q, params);
    calls += 1;
    if (!(result.affected_nodes + result.affected_edges >= 1)) fail(`${q.name}: changed nothing: ${JSON.stringify(result)}`);
    out.write(JSON.stringify({ name: q.name, params, result }) + '\n');
    called += 1;
  }
}
await new Promise((resolve) => out.end(resolve));
await reader.close();
await client.close();
console.log(`sdk client (${mode}): ${tools.length} tools, ${called} stored queries called (${calls} calls)`);

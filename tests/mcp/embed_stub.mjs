// A deterministic stand-in for an OpenAI-compatible embeddings endpoint (tests/mcp/sdk.sh), so the
// cookbooks' `nearest`/`rrf` stored queries run without a network or a key: the server and the CLI
// point OMNIGRAPH_EMBED_BASE_URL here and get the same vector for the same text.
// POST /embeddings {model, input: [text, ...]} -> {data: [{embedding, index}, ...]}. A text's vector
// is its hashed bag of words (lowercase runs of letters and digits, FNV-1a into DIM buckets),
// normalised, so texts that share words are near each other.
// Usage: node embed_stub.mjs DIM PORT_FILE   (writes the port it listens on to PORT_FILE)
import fs from 'node:fs';
import http from 'node:http';

const [dimArg, portFile] = process.argv.slice(2);
const dim = Number(dimArg);
if (!Number.isInteger(dim) || dim < 1 || !portFile) {
  console.error('usage: node embed_stub.mjs DIM PORT_FILE');
  process.exit(2);
}

function fnv1a(word) {
  let h = 0x811c9dc5;
  for (const c of Buffer.from(word, 'utf8')) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return h;
}

function embed(text) {
  const v = new Array(dim).fill(0);
  for (const word of String(text).toLowerCase().match(/[a-z0-9]+/g) ?? []) v[fnv1a(word) % dim] += 1;
  const norm = Math.hypot(...v);
  if (norm === 0) v[0] = 1;
  return norm === 0 ? v : v.map((x) => x / norm);
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const answer = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method !== 'POST' || !req.url.endsWith('/embeddings')) return answer(404, { error: 'no route' });
    let input;
    try {
      input = JSON.parse(body).input;
    } catch {
      return answer(400, { error: 'body is not JSON' });
    }
    const texts = Array.isArray(input) ? input : [input];
    answer(200, { data: texts.map((t, index) => ({ embedding: embed(t), index })) });
  });
});
server.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(server.address().port)));

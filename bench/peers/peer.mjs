// The peers of bench/peers/run.sh, Kùzu and DuckDB through their Node.js packages, answering the
// same shapes over the same files as omnigraph-cold-bench (bench/api/cold_bench.cc) does for
// OmniGraph and SQLite: the same start lists, the same answer shapes (a lookup is the age, a
// count a number, top-3 an array of [name, in-degree], age_groups an array of [age, count,
// smallest name], knows_by_age an array of [age, count]), so answers compare as JSON text.
// Both peers are limited to 2 threads (Kùzu: the connection's maxNumThreads; DuckDB:
// `SET threads=2`), on-disk databases.
//
//   node peer.mjs version kuzu|duckdb DIR      -> {"system", "version"}
//   node peer.mjs load  kuzu|duckdb DIR          -> {"system", "load_s"}
//   node peer.mjs warm  kuzu|duckdb DIR PERSONS  -> {"system", "<shape>_ms", "answers"}
//   node peer.mjs fresh kuzu|duckdb DIR SHAPE    -> {"system", "shape", "ms", "peak_rss_bytes",
//                                                   "answer"}
// PEERS_NODE_MODULES names the folder run.sh installed the packages into. The persons are keyed
// by a string `name` ("p17") or, when persons.csv's header starts with `pid` (`run.sh
// --int-keys`), by an integer `pid` (17): each peer then gets an INT64 / BIGINT primary key.
import { createRequire } from "node:module";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";

const require = createRequire(path.join(process.env.PEERS_NODE_MODULES ?? ".", "x.js"));
const kThreads = 2;
// The same counts as omnigraph-cold-bench's warm run.
const kLookupStarts = 2000, kHop1Starts = 500, kHop2Starts = 100, kTop3Runs = 5;
const kAgeGroupsRuns = 5, kKnowsByAgeRuns = 5;

const now = () => performance.now();
let intKeys = false;  // Set from the data folder before anything runs.
const keyed = (text) => (intKeys ? text.replaceAll("name", "pid") : text);
const person = (i) => (intKeys ? i : `p${i}`);
const start = (i, persons) => person((i * 7919 + 13) % persons);

// Kùzu: Person(name PRIMARY KEY, age), Knows(Person -> Person); with integer keys `name` is `pid`.
const kuzuQueries = {
  lookup: "MATCH (p:Person {name: $n}) RETURN p.age",
  hop1: "MATCH (a:Person {name: $n})-[:Knows]->(b:Person) RETURN count(DISTINCT b)",
  // Exactly distance 2 through Kùzu's shortest paths: on this graph 1.5x faster than the same
  // answer as a 2-hop pattern with NOT EXISTS { (a)-[:Knows]->(c) }, 13x faster than a list filter.
  hop2:
    "MATCH p = (a:Person {name: $n})-[:Knows* SHORTEST 1..2]->(c:Person) " +
    "WHERE length(p) = 2 AND c.name <> $n RETURN count(DISTINCT c)",
  top3:
    "MATCH (a:Person)-[:Knows]->(b:Person) RETURN b.name, count(*) AS n " +
    "ORDER BY n DESC, b.name LIMIT 3",
  // A grouped aggregate by value over the node table: the three most common ages.
  age_groups:
    "MATCH (p:Person) RETURN p.age, count(*) AS n, min(p.name) AS first " +
    "ORDER BY n DESC, p.age LIMIT 3",
  // A grouped aggregate by value over a traversal: the three ages known most often.
  knows_by_age:
    "MATCH (a:Person)-[:Knows]->(b:Person) RETURN b.age, count(*) AS n " +
    "ORDER BY n DESC, b.age LIMIT 3",
};

// DuckDB and SQLite: person(name PRIMARY KEY, age), knows(src, dst) with indexes on both (without
// them DuckDB loads about 6x faster but its 1-hop is 25x and its 2-hop 2x slower here).
const sqlQueries = {
  lookup: "SELECT age FROM person WHERE name = $1",
  hop1: "SELECT count(DISTINCT dst) FROM knows WHERE src = $1",
  hop2:
    "SELECT count(*) FROM (SELECT DISTINCT k2.dst AS d FROM knows k1 JOIN knows k2 ON k2.src = " +
    "k1.dst WHERE k1.src = $1) WHERE d <> $1 AND d NOT IN (SELECT dst FROM knows WHERE src = $1)",
  top3: "SELECT dst, count(*) AS n FROM knows GROUP BY dst ORDER BY n DESC, dst LIMIT 3",
  age_groups:
    "SELECT age, count(*) AS n, min(name) AS first FROM person GROUP BY age " +
    "ORDER BY n DESC, age LIMIT 3",
  knows_by_age:
    "SELECT p.age, count(*) AS n FROM knows k JOIN person p ON p.name = k.dst " +
    "GROUP BY p.age ORDER BY n DESC, p.age LIMIT 3",
};

async function openKuzu(dir, readOnly) {
  const kuzu = require("kuzu");
  const db = new kuzu.Database(path.join(dir, "kuzu.db"), 0, true, readOnly);
  const conn = new kuzu.Connection(db, kThreads);
  const prepared = {};
  const run = async (shape, n) => {
    prepared[shape] ??= await conn.prepare(keyed(kuzuQueries[shape]));
    // An integer key goes as a JS number (Kùzu 0.11.3 matches no row for the BigInt 0n).
    const result = await conn.execute(prepared[shape], n === undefined ? {} : { n });
    const rows = (await result.getAll()).map((row) => Object.values(row));
    result.close();  // Before the database closes: a result freed after it crashes the process.
    return rows;
  };
  return { run, close: async () => { await conn.close(); await db.close(); } };
}

async function openDuckdb(dir, readOnly) {
  const { DuckDBInstance } = require("@duckdb/node-api");
  const options = { threads: String(kThreads) };
  if (readOnly) options.access_mode = "READ_ONLY";
  const instance = await DuckDBInstance.create(path.join(dir, "duck.db"), options);
  const conn = await instance.connect();
  await conn.run(`SET threads=${kThreads}`);
  const prepared = {};
  const run = async (shape, n) => {
    prepared[shape] ??= await conn.prepare(keyed(sqlQueries[shape]));
    const st = prepared[shape];
    if (n !== undefined) intKeys ? st.bindBigInt(1, BigInt(n)) : st.bindVarchar(1, n);
    return (await st.runAndReadAll()).getRowsJS();
  };
  return { run, close: async () => { conn.closeSync(); instance.closeSync(); } };
}

const open = (system, dir, readOnly) =>
  system === "kuzu" ? openKuzu(dir, readOnly) : openDuckdb(dir, readOnly);

// The shapes' answers, normalized: BigInt counts become numbers.
async function answer(db, shape, n) {
  const rows = await db.run(shape, n);
  if (shape === "top3") return rows.map(([name, count]) => [String(name), Number(count)]);
  if (shape === "age_groups") {
    return rows.map(([age, count, first]) => [Number(age), Number(count), String(first)]);
  }
  if (shape === "knows_by_age") return rows.map(([age, count]) => [Number(age), Number(count)]);
  if (rows.length !== 1) throw new Error(`${shape}(${n}): ${rows.length} rows`);
  return Number(rows[0][0]);
}

async function load(system, dir) {
  const persons = path.join(dir, "persons.csv"), knows = path.join(dir, "knows.csv");
  rmSync(path.join(dir, system === "kuzu" ? "kuzu.db" : "duck.db"), { force: true });
  rmSync(path.join(dir, system === "kuzu" ? "kuzu.db.wal" : "duck.db.wal"), { force: true });
  const t0 = now();
  if (system === "kuzu") {
    const kuzu = require("kuzu");
    const db = new kuzu.Database(path.join(dir, "kuzu.db"));
    const conn = new kuzu.Connection(db, kThreads);
    for (const q of [
      intKeys ? "CREATE NODE TABLE Person(pid INT64 PRIMARY KEY, age INT32)"
              : "CREATE NODE TABLE Person(name STRING PRIMARY KEY, age INT32)",
      "CREATE REL TABLE Knows(FROM Person TO Person)",
      `COPY Person FROM '${persons}' (header=true)`,
      `COPY Knows FROM '${knows}' (header=true)`,
      "CHECKPOINT",
    ]) (await conn.query(q)).close();
    await conn.close();
    await db.close();
  } else {
    const { DuckDBInstance } = require("@duckdb/node-api");
    const instance = await DuckDBInstance.create(path.join(dir, "duck.db"),
                                                 { threads: String(kThreads) });
    const conn = await instance.connect();
    for (const q of [
      `SET threads=${kThreads}`,
      intKeys ? "CREATE TABLE person(pid BIGINT PRIMARY KEY, age INTEGER NOT NULL)"
              : "CREATE TABLE person(name VARCHAR PRIMARY KEY, age INTEGER NOT NULL)",
      `CREATE TABLE knows(src ${intKeys ? "BIGINT" : "VARCHAR"} NOT NULL, ` +
        `dst ${intKeys ? "BIGINT" : "VARCHAR"} NOT NULL)`,
      `COPY person FROM '${persons}' (HEADER)`,
      `COPY knows FROM '${knows}' (HEADER)`,
      "CREATE INDEX knows_src ON knows(src)",
      "CREATE INDEX knows_dst ON knows(dst)",
      "CHECKPOINT",
    ]) await conn.run(q);
    conn.closeSync();
    instance.closeSync();
  }
  return { system, load_s: (now() - t0) / 1000 };
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

// `count` timed calls of `one(i)` after one untimed warm-up: {ms: median, answers}.
async function timed(count, one) {
  await one(0);
  const ms = [], answers = [];
  for (let i = 0; i < count; ++i) {
    const t0 = now();
    answers.push(await one(i));
    ms.push(now() - t0);
  }
  return { ms: median(ms), answers };
}

async function warm(system, dir, persons) {
  const db = await open(system, dir, true);
  const shapes = {
    lookup: [kLookupStarts, (i) => answer(db, "lookup", start(i, persons))],
    hop1: [kHop1Starts, (i) => answer(db, "hop1", start(i, persons))],
    hop2: [kHop2Starts, (i) => answer(db, "hop2", start(i, persons))],
    top3: [kTop3Runs, () => answer(db, "top3")],
    age_groups: [kAgeGroupsRuns, () => answer(db, "age_groups")],
    knows_by_age: [kKnowsByAgeRuns, () => answer(db, "knows_by_age")],
  };
  const out = { system, answers: {} };
  for (const [shape, [count, one]] of Object.entries(shapes)) {
    const { ms, answers } = await timed(count, one);
    out[`${shape}_ms`] = ms;
    const whole = ["top3", "age_groups", "knows_by_age"].includes(shape);
    out.answers[shape] = whole ? answers[0] : answers;
  }
  await db.close();
  return out;
}

async function fresh(system, dir, shape) {
  const t0 = now();
  const db = await open(system, dir, true);
  const result = await answer(db, shape, shape === "hop1" || shape === "lookup" ? person(1) : undefined);
  const ms = now() - t0;
  await db.close();
  return {
    system, shape, ms,
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    answer: result,
  };
}

const [command, system, dir, arg] = process.argv.slice(2);
if (!["kuzu", "duckdb"].includes(system) || !dir) {
  console.error("usage: node peer.mjs load|warm|fresh kuzu|duckdb DIR [PERSONS|SHAPE]");
  process.exit(2);
}
intKeys = readFileSync(path.join(dir, "persons.csv"), "utf8").slice(0, 4) === "pid,";
const version = (s) =>
  s === "kuzu" ? require("kuzu").VERSION : require("@duckdb/node-api").version();
const out = command === "version" ? { system, version: version(system) }
          : command === "load" ? await load(system, dir)
          : command === "warm" ? await warm(system, dir, Number(arg))
          : command === "fresh" ? await fresh(system, dir, arg)
          : null;
if (out === null) {
  console.error(`unknown command ${command}`);
  process.exit(2);
}
console.log(JSON.stringify(out));

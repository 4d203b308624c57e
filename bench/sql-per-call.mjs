#!/usr/bin/env node
// Diagnostic (not part of run.mjs): how much Postgres work one tool call costs. Starts its own
// redis-server, handler and Toolgate (dist/, fresh schema), makes N instant and N background calls
// (IN_FLIGHT at a time, default 1: one after another), and reads Postgres's own counters before and after: transactions of the
// database (each autocommit statement counts as one; pg_stat_database, so other users of the same
// database add to it) and, per table of the benchmark's schema, index scans, sequential scans,
// inserted and updated rows (pg_stat_user_tables). Postgres flushes these counters with a delay
// (up to ~10 s for an idle backend), hence the pauses. ~1 minute. Usage: node bench/sql-per-call.mjs
// With calls in flight together, the accept, claim and record of several calls share statements (ToolCallWrites):
// IN_FLIGHT=20 N=2000 node bench/sql-per-call.mjs
// MODES picks the calls (default instant,background,mcp; mcp: server-everything's echo through the REST route).
import pg from 'pg';
import { Pool } from 'undici';
import { CALL_ARGUMENTS } from './lib/body.mjs';
import { agentWith, constructorApp, httpTool, mcpApp } from './lib/fixtures.mjs';
import { killAllSync, stopAll } from './lib/procs.mjs';
import { startEverything, startHandler, startRedis, startToolgate } from './lib/stack.mjs';

const N = Number(process.env.N ?? 200);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 1);
const MODES = (process.env.MODES ?? 'instant,background,mcp').split(',');
const PG_BASE = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on('exit', killAllSync);

const redis = await startRedis();
const handler = await startHandler();
const everything = MODES.includes('mcp') ? await startEverything() : undefined;
const stack = await startToolgate({ redisUrl: redis.url, label: 'sql' });
const admin = new pg.Client({ connectionString: PG_BASE });
await admin.connect();
const database = new URL(PG_BASE).pathname.slice(1);

async function snapshot() {
  const db = (
    await admin.query(`SELECT (xact_commit + xact_rollback)::bigint AS x FROM pg_stat_database WHERE datname = $1`, [
      database,
    ])
  ).rows[0];
  const tables = (
    await admin.query(
      `SELECT relname, seq_scan::int AS seq, coalesce(idx_scan, 0)::int AS idx, n_tup_ins::int AS ins, n_tup_upd::int AS upd
       FROM pg_stat_user_tables WHERE schemaname = $1`,
      [stack.schema],
    )
  ).rows;
  return { x: Number(db.x), tables: Object.fromEntries(tables.map((t) => [t.relname, t])) };
}

try {
  for (const mode of MODES) {
    const app =
      mode === 'mcp'
        ? await mcpApp(stack, 'sql', everything.url)
        : await constructorApp(stack, 'sql', [httpTool('t', `${handler.url}/ok/sql-${mode}`, mode)]);
    const tool = mode === 'mcp' ? 'echo' : 't';
    const args = mode === 'mcp' ? { message: 'hi' } : CALL_ARGUMENTS;
    const agent = await agentWith(stack, app.app, [tool]);
    const client = new Pool(stack.baseUrl, { connections: IN_FLIGHT });
    const request = {
      method: 'POST',
      path: `/v1/agents/${agent.agentId}/tool-calls`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.token}` },
      body: JSON.stringify({ tool: `${app.prefix}${tool}`, dialog_id: 'sql', arguments: args }),
    };
    for (let i = 0; i < 20; i++) await (await client.request(request)).body.dump(); // warm caches
    await sleep(12_000);
    const before = await snapshot();
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent++ < N) await (await client.request(request)).body.dump();
      }),
    );
    await sleep(14_000); // background deliveries finish, then the counters are flushed
    const after = await snapshot();
    await client.close();
    const perCall = ((after.x - before.x) / N).toFixed(2);
    console.log(`\n${mode}, ${IN_FLIGHT} in flight: ${perCall} Postgres transactions per call (database-wide)`);
    console.log('table                  idx scans  seq scans  inserts  updates   (per call)');
    for (const [name, t] of Object.entries(after.tables)) {
      const b = before.tables[name] ?? { seq: 0, idx: 0, ins: 0, upd: 0 };
      const d = ['idx', 'seq', 'ins', 'upd'].map((k) => (t[k] - b[k]) / N);
      if (d.some((v) => v !== 0))
        console.log(`${name.padEnd(22)} ${d.map((v) => v.toFixed(2).padStart(9)).join('  ')}`);
    }
  }
} finally {
  await admin.end().catch(() => undefined);
  await stack.stop();
  await stopAll();
}

import { Client } from 'undici';
import pg from 'pg';
import { startRedis, startHandler, startToolgate } from './lib/stack.mjs';
import { stopAll } from './lib/procs.mjs';
import { constructorApp, agentWith, httpTool } from './lib/fixtures.mjs';
import { CALL_ARGUMENTS } from './lib/body.mjs';
const sleep = (ms) => new Promise(r => setTimeout(r, ms));
const redis = await startRedis(); const handler = await startHandler();
const stack = await startToolgate({ redisUrl: redis.url, label: 'diag' });
try {
  const admin = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/test' }); await admin.connect();
  const snap = async () => {
    const db = (await admin.query(`select xact_commit::int c, xact_rollback::int r from pg_stat_database where datname='test'`)).rows[0];
    const t = (await admin.query(`select relname, seq_scan::int s, coalesce(idx_scan,0)::int i, n_tup_ins::int ins, n_tup_upd::int upd from pg_stat_user_tables where schemaname=$1`, [stack.schema])).rows;
    return { db, t: Object.fromEntries(t.map(r => [r.relname, r])) };
  };
  const diff = (a, b, n) => {
    const out = { xact_per_call: (b.db.c - a.db.c + b.db.r - a.db.r) / n };
    for (const [k, v] of Object.entries(b.t)) { const o = a.t[k] ?? { s: 0, i: 0, ins: 0, upd: 0 }; const d = { seq: (v.s - o.s)/n, idx: (v.i - o.i)/n, ins: (v.ins - o.ins)/n, upd: (v.upd - o.upd)/n }; if (Object.values(d).some(x => x)) out[k] = d; }
    return out;
  };
  for (const mode of ['instant', 'background']) {
    const app = await constructorApp(stack, 'diag', [httpTool('t', `${handler.url}/ok/diag-${mode}`, mode)]);
    const agent = await agentWith(stack, app.app, ['t']);
    const c = new Client(stack.baseUrl);
    const req = { method: 'POST', path: `/v1/agents/${agent.agentId}/tool-calls`, headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.token}` }, body: JSON.stringify({ tool: `${app.prefix}t`, dialog_id: 'd', arguments: CALL_ARGUMENTS }) };
    for (let i = 0; i < 20; i++) await (await c.request(req)).body.dump();
    await sleep(12000);
    const a = await snap();
    const N = 200;
    for (let i = 0; i < N; i++) await (await c.request(req)).body.dump();
    await sleep(2000);
    await sleep(12000);
    const b = await snap();
    console.log(mode, JSON.stringify(diff(a, b, N), null, 1));
    await c.close();
  }
  await admin.end();
} finally { await stack.stop(); await stopAll(); }

// The HTTP layer's share of a call: API-process CPU per request of an instant call and of
// GET /v1/agents/{a}/tools, against the built API (dist/) on a throw-away schema.
// Usage: npm run build && node bench/http-layer.mjs [N=3000] [K=20] [ROUNDS=3]
import { execSync } from 'node:child_process';
import { Pool } from 'undici';
import { cpuMs } from './lib/cpu.mjs';
import { agentWith, constructorApp, httpTool } from './lib/fixtures.mjs';
import { startHandler, startRedis, startToolgate } from './lib/stack.mjs';

const [N = 3000, K = 20, ROUNDS = 3] = process.argv.slice(2).map(Number);

/** Sends `n` copies of `request` with `k` in flight; returns the API's CPU ms per request and req/s. */
async function measure(pool, apiPid, request, n, k) {
  let left = n;
  let failed = 0;
  const cpu0 = cpuMs(apiPid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: k }, async () => {
      while (left-- > 0) {
        const response = await pool.request(request);
        await response.body.dump();
        if (response.statusCode !== request.expect) failed += 1;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  if (failed) throw new Error(`${failed} of ${n} requests did not answer ${request.expect}`);
  return { cpuMsPerRequest: (cpuMs(apiPid) - cpu0) / n, perSecond: (n * 1000) / wallMs };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const redis = await startRedis();
const handler = await startHandler();
const stack = await startToolgate({ redisUrl: redis.url, label: 'http-layer' });
try {
  const instant = await constructorApp(stack, 'instant', [httpTool('ping', `${handler.url}/ok/instant`, 'instant')]);
  const agent = await agentWith(stack, instant.app, ['ping']);
  const headers = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };
  const requests = {
    'POST tool-calls (instant)': {
      method: 'POST',
      path: `/v1/agents/${agent.agentId}/tool-calls`,
      headers,
      body: JSON.stringify({
        tool: `${instant.prefix}ping`,
        dialog_id: 'http-layer',
        arguments: { customer_id: 'c-1' },
      }),
      expect: 200,
    },
    'GET tools': {
      method: 'GET',
      path: `/v1/agents/${agent.agentId}/tools`,
      headers: { authorization: headers.authorization },
      expect: 200,
    },
  };
  const pool = new Pool(stack.baseUrl, { connections: K, pipelining: 1 });
  for (const request of Object.values(requests)) await measure(pool, stack.api.pid, request, Math.min(500, N), K); // warm-up
  console.log(`load before: ${execSync('uptime').toString().trim()}`);
  for (const [name, request] of Object.entries(requests)) {
    const rounds = [];
    for (let i = 0; i < ROUNDS; i += 1) rounds.push(await measure(pool, stack.api.pid, request, N, K));
    const cpu = median(rounds.map((r) => r.cpuMsPerRequest));
    const rate = median(rounds.map((r) => r.perSecond));
    console.log(
      `${name}: API CPU ${cpu.toFixed(3)} ms/request, ${rate.toFixed(0)} req/s (N=${N}, K=${K}, median of ${ROUNDS})`,
    );
  }
  console.log(`load after: ${execSync('uptime').toString().trim()}`);
  await pool.close();
} finally {
  await stack.stop();
  handler.proc.child.kill();
  redis.proc.child.kill();
}

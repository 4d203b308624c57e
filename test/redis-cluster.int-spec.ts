// Managed Redis as a Redis Cluster: three masters on loopback ports. Toolgate is given one node (REDIS_CLUSTER=true) and
// a hash-tagged prefix: BullMQ's scripts and Toolgate's own pipelines touch keys of one slot; pub/sub crosses nodes.
import { afterAll, beforeAll, expect } from 'vitest';
import type { Cluster } from 'ioredis';
import { type ManagedRedis, describeCallsEndToEnd } from './support/calls-end-to-end.js';
import { eventually } from './support/eventually.js';
import { agentWithHandlerTool } from './support/fixtures.js';
import { type LocalCluster, scratchDir, startRedisCluster } from './support/managed-redis.js';

const PREFIX = '{tg_cluster}';
let scratch: ReturnType<typeof scratchDir>;
let cluster: LocalCluster;
let admin: Cluster;
let managed: ManagedRedis;

beforeAll(async () => {
  scratch = scratchDir('redis-cluster');
  cluster = await startRedisCluster(scratch.dir);
  admin = cluster.connect();
  const masters = () => admin.nodes('master');
  managed = {
    // Any node will do: the others are found from it.
    env: { REDIS_URL: `redis://127.0.0.1:${cluster.ports[2]}`, REDIS_CLUSTER: 'true', QUEUE_PREFIX: PREFIX },
    client: admin,
    subscribers: async (channel) => {
      const counts = await Promise.all(
        masters().map(async (node) => Number(((await node.pubsub('NUMSUB', channel)) as [string, number])[1])),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    },
    flushAll: async () => {
      await Promise.all(masters().map((node) => node.flushall()));
    },
  };
});

afterAll(async () => {
  admin?.disconnect();
  await cluster?.stop();
  scratch?.remove();
});

describeCallsEndToEnd('a three-master Redis Cluster', () => managed, {
  'keeps every key it wrote in the slot of its prefix, on one node': async () => {
    const keysPerNode = await Promise.all(admin.nodes('master').map((node) => node.keys('*')));
    const keys = keysPerNode.flat();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.startsWith(`${PREFIX}:`), key).toBe(true);
    expect(keysPerNode.filter((nodeKeys) => nodeKeys.length > 0)).toHaveLength(1);
  },
  "hears a tool change published on any node (pub/sub crosses the cluster's nodes)": async ({
    stack,
    replica,
    handler,
  }) => {
    // `auto`: a changed description reaches the agent without the project's approval (decision 032); this is about pub/sub.
    const ctx = await agentWithHandlerTool(stack.api, handler, {}, { approveChanges: 'auto' });
    const list = async () =>
      (await replica.request('GET', `${ctx.base}/tools`, { token: ctx.agent })).body.data[0].description as string;
    expect(await list()).toBe('[App "Shop"] Ищет клиента по номеру');
    // The same message Toolgate publishes for a change, PUBLISHed on each master in turn: the replica's subscriber,
    // wherever it sits, hears each one and rebuilds the agent's list from the database.
    for (const [i, node] of admin.nodes('master').entries()) {
      await stack.api.sql('UPDATE http_tools SET description_ru = $1 WHERE id = $2', [
        `seen from node ${i}`,
        ctx.tools[0].id,
      ]);
      await node.publish(`${PREFIX}:toolset-bumped`, JSON.stringify([ctx.projectId, ctx.agentId]));
      await eventually(async () => expect(await list()).toBe(`[App "Shop"] seen from node ${i}`));
    }
  },
});

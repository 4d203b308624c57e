import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { CallEvents } from '../libs/broadcast/src/index.js';
import type { Env } from '../libs/config/src/index.js';

// A process whose first events come in a burst (a worker restarted under a backlog, an API's first
// long-polls) used to add a pair of listeners per waiter to a connection still connecting: past ten,
// Node printed a listener leak warning to stderr, a line that is not JSON in a JSON log.
describe('call events in a burst on fresh connections', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  let events: CallEvents | undefined;

  afterEach(async () => {
    process.off('warning', onWarning);
    await events?.onModuleDestroy();
  });

  it('reach their listeners, and the connections carry one listener per event however many wait', async () => {
    process.on('warning', onWarning);
    events = new CallEvents({
      REDIS_URL: inject('redisUrl'),
      QUEUE_PREFIX: `tg_burst_${randomBytes(4).toString('hex')}`,
    } as Env);
    const ids = Array.from({ length: 30 }, (_, i) => `call_${i}`);
    const cancelled: string[] = [];
    const stops = await Promise.all(ids.map((id) => events!.onCancel(id, () => cancelled.push(id))));
    const watches = ids.map((id) => events!.watchFinish(id));
    await Promise.all(ids.map((id) => events!.publishFinished(id)));
    await Promise.all(watches.map((watch) => watch.finished));
    await Promise.all(ids.map((id) => events!.publishCancel(id)));
    await expect.poll(() => cancelled.length).toBe(30);
    for (const stop of [...stops, ...watches.map((watch) => watch.stop)]) stop();

    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });
});

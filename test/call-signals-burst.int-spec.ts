import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { CallSignals, signalsOf } from '../libs/broadcast/src/index.js';
import type { Env } from '../libs/config/src/index.js';

// A process whose first signals come in a burst (a worker restarted under a backlog, an API's first
// long-polls) used to add a pair of listeners per waiter to a connection still connecting: past ten,
// Node printed a listener leak warning to stderr, a line that is not JSON in a JSON log.
describe('call signals in a burst on fresh connections', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  let signals: CallSignals | undefined;

  afterEach(async () => {
    process.off('warning', onWarning);
    await signals?.onModuleDestroy();
  });

  it('reach their listeners, and the connections carry one listener per event however many wait', async () => {
    process.on('warning', onWarning);
    signals = new CallSignals({
      REDIS_URL: inject('redisUrl'),
      QUEUE_PREFIX: `tg_burst_${randomBytes(4).toString('hex')}`,
    } as Env);
    const ids = Array.from({ length: 30 }, (_, i) => `call_${i}`);
    const cancelled: string[] = [];
    const stops = await Promise.all(ids.map((id) => signals!.onCancel(id, () => cancelled.push(id))));
    const watches = ids.map((id) => signals!.watchFinish(id));
    await Promise.all(ids.map((id) => signals!.publishFinished(id)));
    await Promise.all(watches.map((watch) => watch.finished));
    await Promise.all(ids.map((id) => signals!.publishCancel(id)));
    await expect.poll(() => cancelled.length).toBe(30);
    for (const stop of [...stops, ...watches.map((watch) => watch.stop)]) stop();

    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });

  it('of one turn travel as one message', async () => {
    const prefix = `tg_burst_${randomBytes(4).toString('hex')}`;
    signals = new CallSignals({ REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: prefix } as Env);
    const channel = `${prefix}:tool-call-finished`;
    const raw = new Redis(inject('redisUrl'));
    const messages: string[] = [];
    try {
      raw.on('message', (_channel: string, message: string) => messages.push(message));
      await raw.subscribe(channel);
      const ids = Array.from({ length: 25 }, (_, i) => `call_${i}`);
      const watches = ids.map((id) => signals!.watchFinish(id));
      await Promise.all(watches.map((watch) => watch.subscribed));

      await Promise.all(ids.map((id) => signals!.publishFinished(id)));
      await Promise.all(watches.map((watch) => watch.finished));
      await expect.poll(() => messages.length).toBe(1);
      expect(signalsOf(messages[0]).map(([id]) => id)).toEqual(ids);
      for (const watch of watches) watch.stop();
    } finally {
      raw.disconnect();
    }
  });

  it('published in the turn the process shuts down, open no connection', async () => {
    signals = new CallSignals({ REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: 'tg_burst_closing' } as Env);
    const published = signals.publishFinished('call_late');
    await signals.onModuleDestroy();
    await expect(published).rejects.toThrow(/shutting down/);
    expect((signals as unknown as { publisher?: unknown }).publisher).toBeUndefined();
  });
});

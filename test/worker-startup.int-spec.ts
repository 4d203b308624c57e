// STYLE.md rule 8: the worker refuses to start when a job name of libs/queue has no processor, so a job can never
// sit in Redis with nobody to run it.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Test } from '@nestjs/testing';
import { describe, expect, inject, it } from 'vitest';
import { parseEnv } from '../libs/config/src/index.js';
import { JOB_PROCESSORS, type JobProcessor } from '../apps/worker/src/job-processor.js';
import { MissingProcessorError } from '../apps/worker/src/queue-consumer.js';
import { WorkerModule } from '../apps/worker/src/worker.module.js';
import { DELIVER_JOB, JOB_NAMES } from '../libs/queue/src/index.js';
import { startAppProcess } from './support/processes.js';
import { TEST_SECRETS_KEYS } from './support/test-api.js';
import { TEST_JWT_SECRET } from './support/tokens.js';

const PRELOAD = fileURLToPath(new URL('./support/unprocessed-job-preload.mjs', import.meta.url));

/** A worker environment whose queue prefix no other test uses: a worker that did start would consume nothing. */
function workerEnv(): Record<string, string> {
  return {
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    QUEUE_PREFIX: `tg_refuse_${randomBytes(4).toString('hex')}`,
    WORKER_METRICS_PORT: '0',
  };
}

/** The worker module with `processors` registered instead of its own. */
function compileWorker(processors: JobProcessor[]) {
  return Test.createTestingModule({ imports: [WorkerModule.forRoot(parseEnv(workerEnv()))] })
    .overrideProvider(JOB_PROCESSORS)
    .useValue(processors)
    .compile();
}

describe('the worker', () => {
  it('refuses to be built when a job name has no processor, naming the job', async () => {
    const refused = compileWorker([]);
    await expect(refused).rejects.toBeInstanceOf(MissingProcessorError);
    await expect(refused).rejects.toThrow(`refusing to start: no processor for job name(s) ${DELIVER_JOB}`);
  });

  it('is built when every job name has a processor', async () => {
    const processors: JobProcessor[] = JOB_NAMES.map((jobName) => ({ jobName, process: async () => undefined }));
    const worker = await compileWorker(processors);
    await worker.close();
  });

  it('process exits 1 saying why when a job name of the build has no processor', async () => {
    const worker = startAppProcess('worker', { ...workerEnv(), NODE_OPTIONS: `--import=${PRELOAD}` });
    // 'close', not 'exit': the last line written before process.exit may still be on its way through the pipe.
    const code = await new Promise<number | null>((resolve) => worker.child.once('close', resolve));
    expect(code, worker.output()).toBe(1);
    expect(worker.output()).toContain('Toolgate worker could not start');
    expect(worker.output()).toContain('refusing to start: no processor for job name(s) replay-tool-call');
    expect(worker.output()).not.toContain('Toolgate worker started');
  });

  it('process exits 1 naming WORKER_METRICS_PORT when its metrics port is taken', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const worker = startAppProcess('worker', { ...workerEnv(), WORKER_METRICS_PORT: String(port) });
      const code = await new Promise<number | null>((resolve) => worker.child.once('close', resolve));
      expect(code, worker.output()).toBe(1);
      expect(worker.output()).toContain(
        `Toolgate worker could not start: 127.0.0.1:${port} (WORKER_METRICS_PORT) is already in use by another ` +
          'process: set WORKER_METRICS_PORT to a free port (0: any free port)',
      );
    } finally {
      holder.close();
    }
  });
});

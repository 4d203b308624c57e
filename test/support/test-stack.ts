import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseEnv } from '../../libs/config/src/index.js';
import { WorkerModule } from '../../apps/worker/src/worker.module.js';
import { type TestApi, startTestApi } from './test-api.js';

export interface TestStack {
  api: TestApi;
  worker: INestApplicationContext | null;
  startWorker(): Promise<INestApplicationContext>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

/** The API and an in-process worker over the same schema and queue prefix. */
export async function startTestStack(
  overrides: Record<string, string> = {},
  options: { worker?: boolean } = {},
): Promise<TestStack> {
  const api = await startTestApi(overrides);
  const stack: TestStack = {
    api,
    worker: null,
    async startWorker() {
      const env = parseEnv({
        ...Object.fromEntries(Object.entries(api.env).map(([k, v]) => [k, String(v)])),
        ...overrides,
      });
      const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(env), { logger: false });
      await worker.init();
      stack.worker = worker;
      return worker;
    },
    async stopWorker() {
      await stack.worker?.close();
      stack.worker = null;
    },
    async close() {
      await stack.stopWorker();
      await api.close();
    },
  };
  if (options.worker !== false) await stack.startWorker();
  return stack;
}

import { availableParallelism } from 'node:os';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'test/**/*.int-spec.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // A test file per core at once (Vitest's default is one fewer, so one at a time on 2 cores): most files wait on
    // the processes they start, Postgres and Redis, and each has its own schema (and its own redis-server where it
    // flushes). On this 2-core machine: 547 s one at a time, 325 s two at a time. `--maxWorkers=1` runs them singly.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabasePool } from '../libs/persistence/src/index.js';
import { freshDatabase } from './support/test-api.js';

let db: DatabasePool;

beforeAll(async () => {
  db = new DatabasePool((await freshDatabase()).databaseUrl);
});
afterAll(async () => {
  await db.end();
});

/** The backends that serve `n` statements run at once (each holds its connection 200 ms). */
async function burst(n: number): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: n }, () => db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)')),
  );
  return answers.map((answer) => answer.rows[0].pid).sort();
}

it("keeps the connections a burst opened past pg's 10 s idle timeout: the next burst opens no Postgres session", async () => {
  const first = await burst(4);
  expect(new Set(first).size).toBe(4);
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  expect(db.pool.totalCount).toBe(4);
  expect(await burst(4)).toEqual(first);
}, 20_000);

import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { startTestApi } from './support/test-api.js';
it('dumps', async () => {
  const api = await startTestApi();
  writeFileSync('/tmp/o12/openapi.json', JSON.stringify((await api.request('GET', '/openapi.json')).body, null, 2));
  await api.close();
});

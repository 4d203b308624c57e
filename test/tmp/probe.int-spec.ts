import { it } from 'vitest';
import { startTestApi } from '../support/test-api.js';
import { signToken } from '../support/tokens.js';
it('probe', async () => {
  const api = await startTestApi({ LOG_LEVEL: 'error' });
  const op = await signToken({ role: 'operator' });
  for (const q of ['?token=%d2%83%df%72%f5%f3%94%c3%8a', '?token=abc', '?token=%C3%A9']) {
    const r = await api.request('GET', '/admin/queues/x' + q, { token: op });
    console.log(q, r.status, r.text.slice(0, 200));
  }
  await api.close();
});

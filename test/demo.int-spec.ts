import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { requireDist } from './support/processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('npm run demo', () => {
  it('starts Toolgate and the example handler, runs every step, exits 0 and stops what it started', async () => {
    requireDist();
    const child = spawn(process.execPath, ['dist/scripts/demo.js'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(output).toContain('200 succeeded: {"id":"42","name":"Ada Lovelace","plan":"pro"}');
    expect(output).toMatch(/attempt 1: http_status 503[\s\S]*attempt 2: http_status 503[\s\S]*attempt 3: success 200/);
    expect(output).toMatch(/the host is told: tool_call\.finished call_\w+ succeeded, the dialog resumes with: /);
    expect(output).toMatch(/tools\/list: demo_crm_\w+_find_customer, demo_crm_\w+_flaky_lookup/);
    expect(output).toMatch(/tools\/call demo_crm_\w+_find_customer: \{"id":"7"/);
    expect(output).toContain('Every step succeeded');
    expect(code, output).toBe(0);
    const dataDir = /logs in (\S+)\/toolgate\.log/.exec(output)?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir!)).toBe(false); // throw-away data removed
  }, 180_000);
});

describe('the verifier package', () => {
  it('packs, installs into a handler project, and verifies what a Standard Webhooks signer signed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-verifier-'));
    try {
      const pack = spawnSync('npm', ['pack', '--pack-destination', dir], {
        cwd: join(root, 'libs/verifier'),
        encoding: 'utf8',
      });
      expect(pack.status, pack.stderr).toBe(0);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a-handler', private: true, type: 'module' }));
      const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', './toolgate-verifier-0.1.0.tgz'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(install.status, install.stderr).toBe(0);
      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const body = JSON.stringify({ event_id: 'evt_1', event_type: 'tool_call', arguments: {} });
      const timestamp = new Date();
      const signature = new Webhook(secret).sign('evt_1', timestamp, body);
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      };
      writeFileSync(
        join(dir, 'check.mjs'),
        `import { verifyToolCall } from '@toolgate/verifier';
const event = verifyToolCall(${JSON.stringify(body)}, ${JSON.stringify(headers)}, ${JSON.stringify(secret)});
console.log(event.event_id);`,
      );
      const check = spawnSync(process.execPath, ['check.mjs'], { cwd: dir, encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.stdout.trim()).toBe('evt_1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

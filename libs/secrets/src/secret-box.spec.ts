import { randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { SecretBox, UnknownSecretKeyError, parseSecretKeys } from './secret-box.js';

const key = (kid: string) => ({ kid, key: new Uint8Array(randomBytes(32)) });

describe('SecretBox', () => {
  it('round-trips a value as compact JWE with dir/A256GCM and the key id', async () => {
    const box = new SecretBox([key('k1')]);
    const jwe = await box.encrypt('whsec_secret-value');
    expect(jwe.split('.')).toHaveLength(5);
    expect(jwe).not.toContain('secret-value');
    expect(decodeProtectedHeader(jwe)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'k1' });
    expect(await box.decrypt(jwe)).toBe('whsec_secret-value');
  });

  it('reads what jose encrypts, and jose reads what it encrypts', async () => {
    const k1 = key('k1');
    const box = new SecretBox([k1]);
    const byJose = await new CompactEncrypt(new TextEncoder().encode('héllo, wörld'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'k1' })
      .encrypt(k1.key);
    expect(await box.decrypt(byJose)).toBe('héllo, wörld');
    const { plaintext } = await compactDecrypt(await box.encrypt('héllo, wörld'), k1.key);
    expect(new TextDecoder().decode(plaintext)).toBe('héllo, wörld');
  });

  it('refuses a tampered value and another algorithm', async () => {
    const k1 = key('k1');
    const box = new SecretBox([k1]);
    const [header, empty, iv, ciphertext, tag] = (await box.encrypt('value')).split('.');
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0] ^= 1;
    await expect(box.decrypt([header, empty, iv, flipped.toString('base64url'), tag].join('.'))).rejects.toThrow();
    const other = await new CompactEncrypt(new TextEncoder().encode('value'))
      .setProtectedHeader({ alg: 'dir', enc: 'A128GCM', kid: 'k1' })
      .encrypt(k1.key.slice(0, 16));
    await expect(box.decrypt(other)).rejects.toThrow();
  });

  it('never produces the same ciphertext twice', async () => {
    const box = new SecretBox([key('k1')]);
    expect(await box.encrypt('x')).not.toBe(await box.encrypt('x'));
  });

  it('round-trips JSON', async () => {
    const box = new SecretBox([key('k1')]);
    expect(await box.decryptJson(await box.encryptJson({ token: 'a', n: 1 }))).toEqual({ token: 'a', n: 1 });
  });

  it('rotates: the first key encrypts, older keys still decrypt, reencrypt moves to the new key', async () => {
    const oldKey = key('old');
    const newKey = key('new');
    const before = new SecretBox([oldKey]);
    const jwe = await before.encrypt('value');

    const after = new SecretBox([newKey, oldKey]);
    expect(after.needsReencryption(jwe)).toBe(true);
    expect(await after.decrypt(jwe)).toBe('value');
    const moved = await after.reencrypt(jwe);
    expect(decodeProtectedHeader(moved).kid).toBe('new');
    expect(after.needsReencryption(moved)).toBe(false);

    const onlyNew = new SecretBox([newKey]);
    expect(await onlyNew.decrypt(moved)).toBe('value');
    await expect(onlyNew.decrypt(jwe)).rejects.toBeInstanceOf(UnknownSecretKeyError);
  });

  it('refuses a value encrypted with a different key under the same id', async () => {
    const jwe = await new SecretBox([key('k1')]).encrypt('value');
    await expect(new SecretBox([key('k1')]).decrypt(jwe)).rejects.toThrow();
  });

  it('parses the SECRETS_KEYS list in order', () => {
    const a = Buffer.alloc(32, 1).toString('base64');
    const keys = parseSecretKeys(`a:${a}, b:${a}`);
    expect(keys.map((k) => k.kid)).toEqual(['a', 'b']);
    expect(keys[0].key).toHaveLength(32);
  });
});

import { createCipheriv, createDecipheriv } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';

export interface SecretKey {
  kid: string;
  key: Uint8Array;
}

export class UnknownSecretKeyError extends Error {
  constructor(kid: string | undefined) {
    super(`no key with id "${kid ?? '(none)'}" in SECRETS_KEYS: add the key that encrypted this value`);
  }
}

/** Parses `kid:base64key,kid:base64key`; the first key encrypts, every key decrypts. */
export function parseSecretKeys(list: string): SecretKey[] {
  return list.split(',').map((entry) => {
    const [kid, key] = entry.trim().split(':');
    return { kid, key: new Uint8Array(Buffer.from(key, 'base64')) };
  });
}

/** The protected header of a value: compact JWE under `dir` + `A256GCM`, the key id in `kid`. */
interface JweHeader {
  alg?: unknown;
  enc?: unknown;
  kid?: unknown;
  zip?: unknown;
  crit?: unknown;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets at rest as compact JWE (`dir` + `A256GCM`, the key id in `kid`), with node:crypto
 * directly (the same bytes jose reads and writes, at a fraction of its cost: no WebCrypto key import
 * nor promise per value — a queued attempt decrypts its body and its app's secret).
 * Rotation: put the new key first; values under older keys still decrypt and can be re-encrypted.
 */
export class SecretBox {
  private readonly keysById: Map<string, Uint8Array>;
  private readonly current: SecretKey;
  private readonly currentHeader: string;
  /** The key of each protected header seen (there are as many headers as keys). */
  private readonly keysByHeader = new Map<string, Uint8Array>();

  constructor(keys: SecretKey[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.current = keys[0];
    this.keysById = new Map(keys.map((k) => [k.kid, k.key]));
    const header = { alg: 'dir', enc: 'A256GCM', kid: this.current.kid };
    this.currentHeader = Buffer.from(JSON.stringify(header)).toString('base64url');
  }

  get currentKeyId(): string {
    return this.current.kid;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a Promise as before (a failure rejects, never throws)
  async encrypt(plaintext: string): Promise<string> {
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(this.currentHeader, 'ascii'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${this.currentHeader}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a Promise as before (a failure rejects, never throws)
  async decrypt(jwe: string): Promise<string> {
    const parts = jwe.split('.');
    if (parts.length !== 5 || parts[1] !== '') throw new Error('not a compact JWE under "dir"');
    const [header, , iv, ciphertext, tag] = parts;
    const key = this.keyOf(header);
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('malformed JWE');
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(header, 'ascii'));
    decipher.setAuthTag(tagBytes);
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('decryption failed');
    }
  }

  async encryptJson(value: unknown): Promise<string> {
    return this.encrypt(JSON.stringify(value));
  }

  async decryptJson<T>(jwe: string): Promise<T> {
    return JSON.parse(await this.decrypt(jwe)) as T;
  }

  /** True when the value was encrypted under a key other than the current one. */
  needsReencryption(jwe: string): boolean {
    return headerOf(jwe.slice(0, jwe.indexOf('.'))).kid !== this.current.kid;
  }

  /** Decrypts under any known key and encrypts again under the current key. */
  async reencrypt(jwe: string): Promise<string> {
    return this.encrypt(await this.decrypt(jwe));
  }

  /** The key a protected header names, checked once per header: `dir` + `A256GCM`, no compression, nothing critical. */
  private keyOf(header: string): Uint8Array {
    const known = this.keysByHeader.get(header);
    if (known) return known;
    const { alg, enc, kid, zip, crit } = headerOf(header);
    if (alg !== 'dir' || enc !== 'A256GCM' || zip !== undefined || crit !== undefined)
      throw new Error('unsupported JWE header');
    const key = typeof kid === 'string' ? this.keysById.get(kid) : undefined;
    if (!key) throw new UnknownSecretKeyError(typeof kid === 'string' ? kid : undefined);
    this.keysByHeader.set(header, key);
    return key;
  }
}

function headerOf(header: string): JweHeader {
  const parsed: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null) throw new Error('malformed JWE header');
  return parsed;
}

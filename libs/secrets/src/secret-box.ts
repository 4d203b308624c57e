import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';

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

/**
 * Encrypts secrets at rest as compact JWE (`dir` + `A256GCM`, the key id in `kid`).
 * Rotation: put the new key first; values under older keys still decrypt and can be re-encrypted.
 */
export class SecretBox {
  private readonly keysById: Map<string, Uint8Array>;
  private readonly current: SecretKey;

  constructor(keys: SecretKey[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.current = keys[0];
    this.keysById = new Map(keys.map((k) => [k.kid, k.key]));
  }

  get currentKeyId(): string {
    return this.current.kid;
  }

  async encrypt(plaintext: string): Promise<string> {
    return new CompactEncrypt(new TextEncoder().encode(plaintext))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: this.current.kid })
      .encrypt(this.current.key);
  }

  async decrypt(jwe: string): Promise<string> {
    const { kid } = decodeProtectedHeader(jwe);
    const key = kid ? this.keysById.get(kid) : undefined;
    if (!key) throw new UnknownSecretKeyError(kid);
    const { plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    return new TextDecoder().decode(plaintext);
  }

  async encryptJson(value: unknown): Promise<string> {
    return this.encrypt(JSON.stringify(value));
  }

  async decryptJson<T>(jwe: string): Promise<T> {
    return JSON.parse(await this.decrypt(jwe)) as T;
  }

  /** True when the value was encrypted under a key other than the current one. */
  needsReencryption(jwe: string): boolean {
    return decodeProtectedHeader(jwe).kid !== this.current.kid;
  }

  /** Decrypts under any known key and encrypts again under the current key. */
  async reencrypt(jwe: string): Promise<string> {
    return this.encrypt(await this.decrypt(jwe));
  }
}

import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';

// Signing secrets are encrypted at rest, not hashed: the gateway signs with them at every attempt.
// AES-256-GCM under the operator's key (WEBHOOK_ENCRYPTION_KEY), bound to the endpoint's
// organization, so a database dump or backup alone reveals no secret, and a ciphertext moved to
// another organization's row does not open. Several keys rotate the key: the first seals, all open.

const VERSION = 'v1';

/** A key's name in a sealed value: the start of its SHA-256, which says nothing of the key. */
const keyIdOf = (key: Buffer) => hash('sha256', key, 'hex').slice(0, 8);

const context = (organizationId: number) => Buffer.from(`webhook-endpoint:organization:${organizationId}`);

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly sealingKeyId: string;

  /** `keys`: 32 bytes each; the first seals new secrets. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0 || keys.some((key) => key.length !== 32)) throw new Error('SecretBox: keys of 32 bytes');
    this.keys = new Map(keys.map((key) => [keyIdOf(key), key]));
    this.sealingKeyId = keyIdOf(keys[0]);
  }

  seal(secret: string, organizationId: number): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.sealingKeyId)!, iv);
    cipher.setAAD(context(organizationId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, this.sealingKeyId, iv, sealed, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join(':');
  }

  /** The secret, or an error naming why it does not open (a key no longer configured, a value altered). */
  open(sealed: string, organizationId: number): string {
    const [version, keyId, iv, data, tag] = sealed.split(':');
    const key = this.keys.get(keyId ?? '');
    if (version !== VERSION || !key || !iv || !data || !tag)
      throw new Error(`a webhook secret sealed under key ${keyId ?? '?'}, which WEBHOOK_ENCRYPTION_KEY does not hold`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(context(organizationId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals small secrets kept in the database (TOTP seeds) with AES-256-GCM under
 * a key derived (HKDF-SHA256) from the data directory's secret, so a copy of
 * the database alone does not yield second factors. Format: v1.<iv>.<tag>.<ciphertext>.
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(rootSecret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(rootSecret, 'utf8'), Buffer.alloc(0), `wip:${purpose}`, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  /** @throws Error when the value was not sealed with this key */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

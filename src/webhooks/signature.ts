import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com): the receiver checks `webhook-signature`
// against the secret it was shown, over `<webhook-id>.<webhook-timestamp>.<body>`.

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64, as the specification words it. */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_` secret. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** The headers of one attempt: one `v1,` signature per secret (two while a rotation's grace period runs). */
export function signedHeaders(
  messageId: string,
  sentAt: Date,
  body: string,
  secrets: readonly string[],
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const signed = `${messageId}.${timestamp}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`,
  );
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}

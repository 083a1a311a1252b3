/** GitHub's signature of a report: ECDSA P-256, SHA-256, DER, base64, over the bytes as sent. */
import { verify } from 'node:crypto';

/** Whether `signature` signs `body` with `publicKey` (PEM); a malformed one never does. */
export function isSignedBy(body: Buffer, signature: string, publicKey: string): boolean {
  try {
    return verify('sha256', body, publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

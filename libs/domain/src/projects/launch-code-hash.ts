import { createHash } from 'node:crypto';

export function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

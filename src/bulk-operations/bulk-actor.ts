import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { presentedApiKey } from '../http/api-key';

/** Hex digits of the key's SHA-256 kept as its id: enough to tell keys apart, never enough to recover one. */
const KEY_ID_HEX_DIGITS = 12;

/**
 * Who asked for a bulk operation, for its audit row: `api-key:<12 hex digits
 * of the key's SHA-256>` when the service has an API_KEY (the middleware has
 * already checked the key), else `anonymous`.
 */
export function bulkActor(req: Pick<Request, 'headers'>, apiKeyConfigured: boolean): string {
  const key = apiKeyConfigured ? presentedApiKey(req) : undefined;
  if (key === undefined) return 'anonymous';
  return `api-key:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, KEY_ID_HEX_DIGITS)}`;
}

import { checkedByJsonBodyGuard, jsonBodyProblem, measuredPayloadText } from '../../http/json-body-guard.middleware';
import type { FailurePolicy } from '../../vocabulary';
import { BOTH_GROUP_NAMES, groupKeyProblem } from '../dto/group-key.validator';
import { enqueueLockIdProblem } from '../dto/lock-id.validator';
import { runAtProblem } from '../dto/run-at.validator';
import { DEFAULT_TENANT, tenantProblem } from '../dto/tenant.validator';
import type { EnqueueInput } from '../enqueue-input.interface';

/** What the input rules need to know of the queue: its handlers and its limits. */
export interface EnqueueRules {
  /** Whether a handler runs actions of `type` here. */
  hasHandler(type: string): boolean;
  /** Every action type a handler runs here, for the message naming the known ones. */
  knownTypes(): readonly string[];
  /** The `maxAttempts` cap of the handler of `type` (its options), or undefined when it sets none. */
  handlerMaxAttempts(type: string): number | undefined;
  /** Largest payload, serialised (bytes): MAX_PAYLOAD_BYTES. */
  maxPayloadBytes: number;
  /** maxAttempts of an input without one: DEFAULT_MAX_ATTEMPTS. */
  defaultMaxAttempts: number;
}

/** One input as the insert statement takes it: canonical lock id, payload as JSON text, `runAt` as ISO text, defaults filled in. */
export interface NormalisedEnqueueInput {
  lockId: string | null;
  groupKey: string | null;
  type: string;
  payloadText: string;
  runAt: string | null;
  maxAttempts: number;
  onFailure: FailurePolicy;
  idempotencyKey: string | null;
  /** The tenant, `default` when none was given. */
  tenant: string;
}

/** The outcome of {@link normaliseEnqueueInput}: the input ready to insert, or the problem to answer with 400. */
export type NormalisedOrProblem = { input: NormalisedEnqueueInput; problem?: undefined } | { problem: string; input?: undefined };

/**
 * Checks one enqueue input against the queue's rules and puts it in the form
 * the insert statement takes. Pure: no database, no framework; the same rules
 * for the REST API (whose validation ran already) and in-process callers.
 *
 * The payload's size is checked first (one native pass), then its structural
 * rules, so an oversize payload is refused before any walk of it.
 *
 * @param input the caller's input.
 * @param field prefix of the field names in a problem: `''` for one action, `actions.3.` for a batch item.
 * @param rules the registered types and the limits.
 * @returns `{ input }`, or `{ problem }`: one sentence naming the field, e.g. `actions.1.runAt must ...`.
 */
export function normaliseEnqueueInput(input: EnqueueInput, field: string, rules: EnqueueRules): NormalisedOrProblem {
  const problem = (text: string): NormalisedOrProblem => ({ problem: `${field}${text}` });
  if (!rules.hasHandler(input.type)) {
    return problem(`type "${input.type}" has no registered handler (known: ${rules.knownTypes().join(', ') || 'none'})`);
  }
  let lockId: string | null = null;
  if (input.lockId !== undefined && input.lockId !== null) {
    const lockIdIssue = enqueueLockIdProblem(input.lockId);
    if (lockIdIssue) return problem(`lockId ${lockIdIssue}`);
    lockId = BigInt(input.lockId).toString();
  }
  let groupKey: string | null = null;
  if (input.groupKey !== undefined && input.groupKey !== null) {
    const groupKeyIssue = groupKeyProblem(input.groupKey);
    if (groupKeyIssue) return problem(`groupKey ${groupKeyIssue}`);
    if (lockId !== null) return problem(BOTH_GROUP_NAMES);
    groupKey = input.groupKey;
  }
  const payload = input.payload ?? {};
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return problem('payload must be a JSON object');
  // JSON.stringify overflows on a value nested thousands deep: the walk below then says so.
  let payloadText = measuredPayloadText(payload);
  try {
    payloadText ??= JSON.stringify(payload);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const size = payloadText === undefined ? 0 : Buffer.byteLength(payloadText);
  if (size > rules.maxPayloadBytes) return problem(`payload is ${size} bytes; the limit is ${rules.maxPayloadBytes} (MAX_PAYLOAD_BYTES)`);
  // The HTTP edge checked a request's payloads already (walked once); in-process
  // callers get the same rules (among them: no real NUL character in a string
  // or key; an escaped backslash followed by "u0000" is plain data).
  const payloadIssue = checkedByJsonBodyGuard(payload) ? null : jsonBodyProblem(payload);
  if (payloadIssue) return problem(`payload: ${payloadIssue.replace(/^body /, '')}`);
  if (payloadText === undefined) return problem('payload is nested too deeply to store');
  let runAt: string | null = null;
  if (input.runAt !== undefined && input.runAt !== null) {
    const runAtIssue = runAtProblem(input.runAt);
    if (runAtIssue) return problem(`runAt ${runAtIssue}`);
    runAt = new Date(input.runAt).toISOString();
  }
  const idempotencyKey = input.idempotencyKey ?? null;
  if (idempotencyKey !== null && (typeof idempotencyKey !== 'string' || idempotencyKey.includes('\u0000'))) {
    return problem('idempotencyKey must be a string without the NUL character');
  }
  let tenant = DEFAULT_TENANT;
  if (input.tenant !== undefined && input.tenant !== null) {
    const tenantIssue = tenantProblem(input.tenant);
    if (tenantIssue) return problem(`tenant ${tenantIssue}`);
    tenant = input.tenant;
  }
  return {
    input: {
      lockId,
      groupKey,
      type: input.type,
      payloadText,
      runAt,
      // A handler's cap is written at once, so the number shown is the number enforced.
      maxAttempts: Math.min(input.maxAttempts ?? rules.defaultMaxAttempts, rules.handlerMaxAttempts(input.type) ?? Infinity),
      onFailure: input.onFailure ?? 'block',
      idempotencyKey,
      tenant,
    },
  };
}

/**
 * The problem of a batch whose idempotency keys repeat (the second use of a
 * key would silently return the first action), or null.
 */
export function repeatedIdempotencyKeyProblem(inputs: readonly NormalisedEnqueueInput[]): string | null {
  const seen = new Set<string>();
  for (const { idempotencyKey } of inputs) {
    if (idempotencyKey === null) continue;
    if (seen.has(idempotencyKey)) return `actions: idempotencyKey "${idempotencyKey}" appears twice in one batch`;
    seen.add(idempotencyKey);
  }
  return null;
}

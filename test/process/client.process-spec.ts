import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { ActionQueueClient, ActionQueueClientOptions, ActionQueueHttpError, ActionQueueNetworkError } from '../../src/client';
import { waitForActions, withTestApp } from '../support';

const KEY = 'client-spec-key-0123456789';
const ROOT = join(__dirname, '..', '..');
/** The committed generated types. */
const CLIENT_TYPES_FILE = join(ROOT, 'src', 'client', 'generated', 'openapi.ts');

/**
 * The types `npm run client:generate` would write for `document`, rendered by
 * scripts/client-types.ts compiled by the jest globalSetup, in a process of
 * its own (openapi-typescript is an ES module jest cannot require).
 */
function renderClientTypes(document: unknown): string {
  const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'scripts', 'client-types.js')], { input: JSON.stringify(document), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`rendering the client types failed: ${run.stderr}`);
  return run.stdout;
}

/** A fetch that answers the first `failures` requests itself (a 503 or a thrown network error), then passes them on. */
function flakyFetch(failures: Array<'503' | 'network' | 'lost-response'>) {
  const calls: string[] = [];
  const fetchFn = async (request: Request): Promise<Response> => {
    calls.push(`${request.method} ${new URL(request.url).pathname}`);
    const failure = failures.shift();
    if (failure === '503') {
      return Response.json(
        { statusCode: 503, message: 'database unavailable; nothing was written, retry later', error: 'Service Unavailable' },
        { status: 503 },
      );
    }
    if (failure === 'network') throw new TypeError('fetch failed');
    const response = await fetch(request);
    // The service did the work, but the answer never reached the client.
    if (failure === 'lost-response') throw new TypeError('fetch failed: socket hang up');
    return response;
  };
  return { fetchFn, calls };
}

describe('ActionQueueClient', () => {
  let url: string;
  let sql: Client;

  const client = (options: Partial<ActionQueueClientOptions> = {}) => new ActionQueueClient({ baseUrl: url, apiKey: KEY, retryDelayMs: 1, ...options });
  const countByKey = async (key: string) =>
    (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM actions WHERE idempotency_key = $1', [key])).rows[0].n;

  const t = withTestApp('client', { env: { API_KEY: KEY, WORKER_CONCURRENCY: '4' } });
  beforeAll(() => ({ url, pg: sql } = t));

  it('has committed types equal to those generated from the live /docs-json (else run npm run client:generate)', async () => {
    const document: unknown = await (await fetch(`${url}/docs-json`, { headers: { authorization: `Bearer ${KEY}` } })).json();
    const generated = renderClientTypes(document);
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    if (generated !== committed) {
      throw new Error('src/client/generated/openapi.ts differs from the live OpenAPI document: run `npm run client:generate` and commit the result');
    }
  });

  it('enqueues, reads and manages actions with string ids, sending the API key', async () => {
    const queue = client();
    const first = await queue.enqueue({ type: 'instance.create', lockId: 26, payload: { instanceId: 26 }, idempotencyKey: 'client-create-26' });
    expect(first.created).toBe(true);
    expect(first.action).toEqual(expect.objectContaining({ id: expect.stringMatching(/^\d+$/), lockId: '26', status: expect.any(String) }));
    const again = await queue.enqueue({ type: 'instance.create', lockId: '26', payload: { instanceId: 26 }, idempotencyKey: 'client-create-26' });
    expect(again).toEqual({ action: expect.objectContaining({ id: first.action.id }), created: false });

    const batch = await queue.enqueueBatch([
      { type: 'instance.update', lockId: '26', payload: { durationMs: 1 } },
      { type: 'instance.delete', lockId: '26' },
    ]);
    expect(batch.map((a) => a.type)).toEqual(['instance.update', 'instance.delete']);

    const finished = await waitForActions(queue, [first.action.id, ...batch.map((a) => a.id)]);
    expect(finished.map((a) => a.status)).toEqual(['done', 'done', 'done']);
    const withTrace = await queue.get(first.action.id);
    expect(withTrace.trace).toEqual([expect.objectContaining({ attempt: 1, outcome: 'done' })]);

    const page = await queue.list({ lockId: '26', limit: 2 });
    expect(page.items.map((a) => a.id)).toEqual([first.action.id, batch[0].id]);
    expect(page.nextCursor).toBe(batch[0].id);
    expect((await queue.group('26')).pendingCount).toBe(0);
    expect((await queue.stats()).byStatus.done).toBeGreaterThanOrEqual(3);

    const later = await queue.enqueue({ type: 'instance.create', runAt: '2099-01-01T00:00:00Z' });
    expect((await queue.cancel(later.action.id)).status).toBe('cancelled');
  });

  it('enqueues into a group named by a string key and reads the group by its key', async () => {
    const queue = client();
    const key = 'tenant:42/orders ü';
    const { action } = await queue.enqueue({ type: 'instance.update', groupKey: key, payload: { durationMs: 1 } });
    expect(action).toEqual(expect.objectContaining({ groupKey: key, lockId: expect.stringMatching(/^-\d+$/) }));
    await waitForActions(queue, [action.id]);
    expect(await queue.groupByKey(key)).toEqual(expect.objectContaining({ groupKey: key, lockId: action.lockId, pendingCount: 0 }));
    expect((await queue.list({ groupKey: key })).items.map((a) => a.id)).toEqual([action.id]);
    await expect(queue.groupByKey('never used')).rejects.toMatchObject({ status: 404 });
  });

  it('reads an action too large for one response without its content (content: false)', async () => {
    await sql.query(`SET aq.max_payload_bytes = '0'`);
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO actions (type, payload, run_at) VALUES ('instance.create', jsonb_build_object('blob', repeat('x', 9 * 1024 * 1024)), now() + interval '10 years')
       RETURNING id::text AS id`,
    );
    await sql.query('RESET aq.max_payload_bytes');
    const queue = client();
    const whole = await queue.get(rows[0].id).catch((e: unknown) => e);
    expect(whole).toEqual(expect.objectContaining({ status: 413, messages: [expect.stringContaining('content=false')] }));
    const bare = await queue.get(rows[0].id, { content: false });
    expect(bare).toMatchObject({ id: rows[0].id, payload: {}, contentOmitted: true, contentBytes: { payload: 9 * 1024 * 1024 + 12 } });
    await sql.query('DELETE FROM actions WHERE id = $1', [rows[0].id]);
  });

  it('throws typed errors carrying the HTTP status and the messages naming the field', async () => {
    const queue = client();
    const bad = await queue.enqueue({ type: 'no.such.type' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ActionQueueHttpError);
    expect(bad).toEqual(
      expect.objectContaining({ status: 400, error: 'Bad Request', messages: [expect.stringMatching(/^type "no.such.type" has no registered handler/)] }),
    );

    const missing = await queue.get('999999999').catch((e: unknown) => e);
    expect(missing).toEqual(expect.objectContaining({ status: 404, messages: ['action 999999999 not found'] }));

    const done = (await queue.list({ status: 'done', limit: 1 })).items[0];
    const conflict = await queue.retry(done.id).catch((e: unknown) => e);
    expect(conflict).toEqual(expect.objectContaining({ status: 409 }));
    expect((conflict as Error).message).toMatch(new RegExp(`^POST /actions/${done.id}/retry answered 409: cannot retry action`));

    const noKey = await client({ apiKey: undefined })
      .stats()
      .catch((e: unknown) => e);
    expect(noKey).toEqual(expect.objectContaining({ status: 401, messages: [expect.stringMatching(/API key required/)] }));
  });

  it('tries an enqueue with an idempotency key again after a 503 and after a network error', async () => {
    const flaky = flakyFetch(['503', 'network']);
    const { action, created } = await client({ fetch: flaky.fetchFn }).enqueue({ type: 'instance.create', idempotencyKey: 'client-retry-1' });
    expect(created).toBe(true);
    expect(flaky.calls).toEqual(['POST /actions', 'POST /actions', 'POST /actions']);
    expect(await countByKey('client-retry-1')).toBe(1);
    expect(action.idempotencyKey).toBe('client-retry-1');
  });

  it('after a lost answer, the repeat with the same key returns the action the first try created, never a second one', async () => {
    const flaky = flakyFetch(['lost-response']);
    const { action, created } = await client({ fetch: flaky.fetchFn }).enqueue({ type: 'instance.create', idempotencyKey: 'client-lost-1' });
    expect(flaky.calls).toHaveLength(2);
    expect(created).toBe(false);
    expect(await countByKey('client-lost-1')).toBe(1);
    expect(action.idempotencyKey).toBe('client-lost-1');
  });

  it('never repeats an enqueue without an idempotency key, a batch with an item lacking one, a cancel or a retry', async () => {
    const cases: Array<[string, (q: ActionQueueClient) => Promise<unknown>]> = [
      ['enqueue', (q) => q.enqueue({ type: 'instance.create' })],
      ['enqueueBatch', (q) => q.enqueueBatch([{ type: 'instance.create', idempotencyKey: 'client-b-1' }, { type: 'instance.create' }])],
      ['cancel', (q) => q.cancel('1')],
      ['retry', (q) => q.retry('1')],
    ];
    for (const [name, call] of cases) {
      const on503 = flakyFetch(['503']);
      const error503 = await call(client({ fetch: on503.fetchFn })).catch((e: unknown) => e);
      expect({ name, error: error503, calls: on503.calls.length }).toEqual({ name, error: expect.objectContaining({ status: 503 }), calls: 1 });

      const onNetwork = flakyFetch(['network']);
      const networkError = await call(client({ fetch: onNetwork.fetchFn })).catch((e: unknown) => e);
      expect(networkError).toBeInstanceOf(ActionQueueNetworkError);
      expect(onNetwork.calls).toHaveLength(1);
    }
  });

  it('tries a batch again when every item has an idempotency key, and gives up after the configured tries', async () => {
    const flaky = flakyFetch(['503']);
    const actions = await client({ fetch: flaky.fetchFn }).enqueueBatch([
      { type: 'instance.create', lockId: '77', idempotencyKey: 'client-batch-1' },
      { type: 'instance.delete', lockId: '77', idempotencyKey: 'client-batch-2' },
    ]);
    expect(actions).toHaveLength(2);
    expect(flaky.calls).toHaveLength(2);

    const down = flakyFetch(['503', '503', '503']);
    const error = await client({ fetch: down.fetchFn, retries: 2 })
      .enqueue({ type: 'instance.create', idempotencyKey: 'client-down-1' })
      .catch((e: unknown) => e);
    expect(error).toEqual(expect.objectContaining({ status: 503 }));
    expect(down.calls).toHaveLength(3);
    expect(await countByKey('client-down-1')).toBe(0);
  });
});

import request from 'supertest';
import { withTestApp } from '../support';

/** The default MAX_RESPONSE_BYTES (8 MiB): the limit the issue met. */
const LIMIT = 8 * 1024 * 1024;
/** `{"blob":"xxx…"}` of a 20 MiB string: 20 971 532 bytes of JSON text. */
const BLOB_CHARS = 20 * 1024 * 1024;
const PAYLOAD_BYTES = BLOB_CHARS + '{"blob": ""}'.length;

/**
 * Reads stay answerable when an SQL producer stored rows larger than one
 * response (aq.max_payload_bytes lifted for an import, as docs/operations.md
 * allows): every list page answers 200 within MAX_RESPONSE_BYTES, listing an
 * item whose content cannot fit without it (`contentOmitted`, with
 * `contentBytes`), and one action can always be read without its content
 * (`GET /actions/:id?content=false`).
 *
 * Seen failing before the change: `GET /actions?status=pending` and
 * `GET /groups/:lockId` answered 413 ("action N holds 20971532 bytes ... over
 * the 8388608-byte limit of one response"), and `content=false` was refused (400).
 */
describe('reads of actions larger than one response', () => {
  const t = withTestApp('oversize_reads', { env: { WORKER_ENABLED: 'false' } });
  let big: string[];
  let small: string[];

  beforeAll(async () => {
    // A small action first and last, six of 20 MB between them (pending, one group each, never claimed: no worker).
    await t.pg.query(`SET aq.max_payload_bytes = '0'`);
    try {
      small = [
        (await t.pg.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (8800, 'bulk.import', '{"n": 1}') RETURNING id::text`)).rows[0]
          .id,
      ];
      big = (
        await t.pg.query<{ id: string }>(
          `INSERT INTO actions (lock_id, type, payload)
           SELECT 8800 + g, 'bulk.import', jsonb_build_object('blob', repeat('x', $1::int)) FROM generate_series(1, 6) AS g RETURNING id::text`,
          [BLOB_CHARS],
        )
      ).rows.map((r) => r.id);
      small.push(
        (await t.pg.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (8900, 'bulk.import', '{"n": 2}') RETURNING id::text`)).rows[0]
          .id,
      );
    } finally {
      await t.pg.query('RESET aq.max_payload_bytes');
    }
  });

  it('lists pending work (200, within the limit): the oversize items without their content, with their sizes', async () => {
    const res = await request(t.url).get('/actions?status=pending');
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(LIMIT);
    expect(res.body.items.map((a: { id: string }) => a.id)).toEqual([small[0], ...big, small[1]]);
    expect(res.body.nextCursor).toBeNull();
    for (const item of res.body.items.slice(1, 7)) {
      expect(item).toMatchObject({ status: 'pending', payload: {}, result: null, lastError: null, contentOmitted: true });
      expect(item.contentBytes).toEqual({ payload: PAYLOAD_BYTES, result: 0, lastError: 0 });
    }
    expect(res.body.items[0]).toMatchObject({ payload: { n: 1 }, contentOmitted: false });
    expect(res.body.items[0].contentBytes).toBeUndefined();
    expect(res.body.items[7]).toMatchObject({ payload: { n: 2 }, contentOmitted: false });
  });

  it('shows an oversize group head without its content', async () => {
    const res = await request(t.url).get('/groups/8801');
    expect(res.status).toBe(200);
    expect(res.body.head).toMatchObject({ id: big[0], payload: {}, contentOmitted: true, contentBytes: { payload: PAYLOAD_BYTES } });
    expect(res.body.pendingCount).toBe(1);
  });

  it('keeps 413 for the whole action, naming the flag that reads it without its content', async () => {
    const res = await request(t.url).get(`/actions/${big[2]}`);
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(new RegExp(`action ${big[2]} holds \\d+ bytes .*MAX_RESPONSE_BYTES.*content=false`));
  });

  it('reads any action without its content with content=false, and refuses another value (400)', async () => {
    const res = await request(t.url).get(`/actions/${big[2]}?content=false`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: big[2], payload: {}, result: null, lastError: null, contentOmitted: true, trace: [] });
    expect(res.body.contentBytes).toEqual({ payload: PAYLOAD_BYTES, result: 0, lastError: 0, trace: 0 });
    const whole = await request(t.url).get(`/actions/${small[0]}?content=true`);
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ payload: { n: 1 }, contentOmitted: false });
    const bad = await request(t.url).get(`/actions/${small[0]}?content=no`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.message)).toContain('content must be true or false');
  });

  it('lists schedules within the limit: one whose payload cannot fit without it', async () => {
    await t.pg.query(`SET aq.max_payload_bytes = '0'`);
    try {
      await t.pg.query(
        `INSERT INTO action_schedules (name, cron, time_zone, type, payload, next_tick_at)
         VALUES ('import-big', '0 3 * * *', 'UTC', 'bulk.import', jsonb_build_object('blob', repeat('x', $1::int)), now() + interval '10 years'),
                ('import-small', '0 4 * * *', 'UTC', 'bulk.import', '{"n": 1}', now() + interval '10 years')`,
        [BLOB_CHARS],
      );
    } finally {
      await t.pg.query('RESET aq.max_payload_bytes');
    }
    const res = await request(t.url).get('/schedules');
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(LIMIT);
    const byName = Object.fromEntries(res.body.items.map((s: { name: string }) => [s.name, s]));
    expect(byName['import-big']).toMatchObject({ payload: {}, contentOmitted: true, contentBytes: { payload: PAYLOAD_BYTES, lastError: 0 } });
    expect(byName['import-small']).toMatchObject({ payload: { n: 1 }, contentOmitted: false });
  });
});

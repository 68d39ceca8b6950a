import request from 'supertest';
import { withTestApp } from '../support';

/**
 * Payload limits at their source: payloads written by SQL were not held to
 * any limit. Migration 014 holds every producer to aq.max_payload_bytes
 * (JSON text bytes, default 131072) unless an operator raises it on purpose.
 */
describe('payload limit of SQL producers', () => {
  // MAX_PAYLOAD_BYTES above the database's limit: the API accepts what the database then refuses.
  const t = withTestApp('paylimit', { env: { WORKER_ENABLED: 'false', MAX_PAYLOAD_BYTES: String(1024 * 1024) } });
  const blob = (bytes: number) => `jsonb_build_object('blob', repeat('x', ${bytes}))`;

  it('refuses an SQL insert over the limit with an error naming it, and accepts one within it', async () => {
    await t.pg.query(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(130_000)})`);
    const error = await t.pg.query(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(140_000)})`).catch((e: Error & { code?: string }) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error & { code?: string }).code).toBe('54000');
    expect((error as Error).message).toMatch(/^payload is \d+ bytes as JSON text, over the limit of 131072 bytes \(aq\.max_payload_bytes\)$/);
  });

  it('lets an operator raise the limit on purpose, for a session or the database', async () => {
    await t.pg.query(`SET aq.max_payload_bytes = '0'`);
    await t.pg.query(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(2_000_000)})`);
    await t.pg.query(`SET aq.max_payload_bytes = '300000'`);
    await t.pg.query(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(250_000)})`);
    await expect(t.pg.query(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(310_000)})`)).rejects.toThrow(/over the limit of 300000 bytes/);
    await t.pg.query('RESET aq.max_payload_bytes');
    await expect(t.pg.query(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(250_000)})`)).rejects.toThrow(/over the limit of 131072 bytes/);
  });

  it('leaves older oversize rows movable: only a write of the payload itself is checked', async () => {
    await t.pg.query(`SET aq.max_payload_bytes = '0'`);
    const { rows } = await t.pg.query<{ id: string }>(`INSERT INTO actions (type, payload) VALUES ('bulk.import', ${blob(500_000)}) RETURNING id::text`);
    await t.pg.query('RESET aq.max_payload_bytes');
    await t.pg.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [rows[0].id]);
    await t.pg.query(`UPDATE actions SET payload = payload WHERE id = $1`, [rows[0].id]);
    await expect(t.pg.query(`UPDATE actions SET payload = ${blob(600_000)} WHERE id = $1`, [rows[0].id])).rejects.toThrow(/aq\.max_payload_bytes/);
  });

  it('answers 413 naming the limit, never 500, when the API accepts a payload the database refuses', async () => {
    const res = await request(t.url)
      .post('/actions')
      .send({ type: 'instance.create', payload: { blob: 'x'.repeat(200_000) } });
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/aq\.max_payload_bytes/);
  });
});

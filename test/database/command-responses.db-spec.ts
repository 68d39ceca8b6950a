import request from 'supertest';
import { withTestApp } from '../support';

/**
 * Cancel and retry answer within MAX_RESPONSE_BYTES, as GET /actions/:id does:
 * an action stored before the payload limit existed (written here with the
 * limit lifted, as an operator may) is cancelled or retried, and the answer
 * says so without its payload (`contentOmitted`).
 *
 * Seen failing before the change: both answers carried the whole 300 KB
 * payload and had no `contentOmitted`.
 */
describe('cancel and retry answers are bounded', () => {
  const LIMIT = 65_536;
  const t = withTestApp('command_responses', { env: { MAX_RESPONSE_BYTES: String(LIMIT), WORKER_ENABLED: 'false' } });

  /** An action of `bytes` bytes of payload, in a group of its own, inserted past the payload limit. */
  async function insertLarge(lockId: number, bytes: number, onFailure: 'block' | 'skip' = 'block'): Promise<string> {
    await t.pg.query(`SET aq.max_payload_bytes = '0'`);
    try {
      const { rows } = await t.pg.query<{ id: string }>(
        `INSERT INTO actions (lock_id, type, payload, on_failure) VALUES ($1, 'test.large', jsonb_build_object('blob', repeat('x', $2::int)), $3) RETURNING id::text`,
        [lockId, bytes, onFailure],
      );
      return rows[0].id;
    } finally {
      await t.pg.query('RESET aq.max_payload_bytes');
    }
  }

  const status = async (id: string) => (await t.pg.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status;

  it('cancels an oversize action and answers 200 without its payload, saying it was omitted', async () => {
    const id = await insertLarge(1, 300_000);
    const res = await request(t.url).post(`/actions/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(LIMIT);
    expect(res.body).toMatchObject({ id, status: 'cancelled', contentOmitted: true, payload: {}, result: null });
    expect(await status(id)).toBe('cancelled');
  });

  it('retries an oversize failed action in place and answers 200 without its payload, saying it was omitted', async () => {
    const id = await insertLarge(2, 300_000);
    await t.pg.query(`UPDATE actions SET status = 'failed', finished_at = now(), last_error = 'boom' WHERE id = $1`, [id]);
    const res = await request(t.url).post(`/actions/${id}/retry`);
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(LIMIT);
    expect(res.body).toMatchObject({ id, status: 'pending', contentOmitted: true, payload: {}, result: null, lastError: null });
    expect(await status(id)).toBe('pending');
  });

  it('refuses with 413 naming the limit, never 500, to copy a skip action stored past the payload limit; it stays failed', async () => {
    const id = await insertLarge(4, 300_000, 'skip');
    await t.pg.query(`UPDATE actions SET status = 'failed', finished_at = now() WHERE id = $1`, [id]);
    const res = await request(t.url).post(`/actions/${id}/retry`);
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/aq\.max_payload_bytes/);
    expect(await status(id)).toBe('failed');
  });

  it('answers with the whole action when it fits, contentOmitted false', async () => {
    const id = await insertLarge(3, 1_000);
    const res = await request(t.url).post(`/actions/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'cancelled', contentOmitted: false, payload: { blob: 'x'.repeat(1_000) } });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { waitFor, withTestApp } from '../support';

const seed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', 'seed-actions.json'), 'utf8')) as {
  actions: { lockId: string; type: string; payload: Record<string, unknown> }[];
};

describe('the four sample actions of the original problem', () => {
  const t = withTestApp('sample', { env: { WORKER_CONCURRENCY: '4' } });
  let url: string;
  beforeAll(() => ({ url } = t));

  it('runs each group in order and the two groups in parallel', async () => {
    const actions = seed.actions.map((a) => ({ ...a, payload: { ...a.payload, durationMs: 300 } }));
    const res = await request(url).post('/actions/batch').send({ actions }).expect(201);
    const ids: string[] = res.body.actions.map((a: { id: string }) => a.id);
    expect(res.body.actions.map((a: { type: string; lockId: string }) => `${a.lockId}:${a.type}`)).toEqual(seed.actions.map((a) => `${a.lockId}:${a.type}`));

    const done = await waitFor(async () => {
      const all = await Promise.all(ids.map((id) => request(url).get(`/actions/${id}`)));
      return all.every((r) => r.body.status === 'done') ? all.map((r) => r.body) : null;
    });
    const [create26, update8, update26, delete8] = done;
    const t = (s: string) => Date.parse(s);
    // Order within each group: the second starts after the first finished.
    expect(t(update26.trace[0].startedAt)).toBeGreaterThanOrEqual(t(create26.trace[0].finishedAt));
    expect(t(delete8.trace[0].startedAt)).toBeGreaterThanOrEqual(t(update8.trace[0].finishedAt));
    // Parallelism between groups: the two heads overlap in time.
    expect(t(update8.trace[0].startedAt)).toBeLessThan(t(create26.trace[0].finishedAt));
    expect(t(create26.trace[0].startedAt)).toBeLessThan(t(update8.trace[0].finishedAt));
    for (const a of done) expect(a.trace).toHaveLength(1);
  });
});

describe('examples/seed-batch.json', () => {
  it('is the REST body for the sample actions of examples/seed-actions.json', () => {
    const read = (f: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', f), 'utf8'));
    expect(read('seed-batch.json')).toEqual({ actions: read('seed-actions.json').actions });
  });
});

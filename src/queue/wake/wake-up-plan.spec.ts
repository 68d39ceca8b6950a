import { planWakeUp, POOLED_POLL_INTERVAL_MS } from './wake-up-plan';

const DIRECT = 'postgres://postgres@db:5432/queue';
const POOLED = 'postgres://postgres@pgbouncer:6432/queue';

describe('planWakeUp', () => {
  it('listens on DATABASE_URL without a pooler', () => {
    expect(planWakeUp({ DATABASE_POOLER: 'none', WORKER_POLL_INTERVAL_MS: 1000 }, DIRECT)).toEqual({ listenUrl: DIRECT, shortPollMs: null, warning: null });
  });

  it('listens on LISTEN_DATABASE_URL behind a transaction pooler, without a warning', () => {
    expect(planWakeUp({ DATABASE_POOLER: 'transaction', LISTEN_DATABASE_URL: DIRECT, WORKER_POLL_INTERVAL_MS: 1000 }, POOLED)).toEqual({
      listenUrl: DIRECT,
      shortPollMs: null,
      warning: null,
    });
  });

  it('behind a transaction pooler without LISTEN_DATABASE_URL, does not listen, polls briefly and says why', () => {
    const plan = planWakeUp({ DATABASE_POOLER: 'transaction', WORKER_POLL_INTERVAL_MS: 10_000 }, POOLED);
    expect(plan.listenUrl).toBeNull();
    expect(plan.shortPollMs).toBe(POOLED_POLL_INTERVAL_MS);
    expect(plan.warning).toContain('LISTEN_DATABASE_URL');
  });

  it('never polls slower than WORKER_POLL_INTERVAL_MS asks', () => {
    expect(planWakeUp({ DATABASE_POOLER: 'transaction', WORKER_POLL_INTERVAL_MS: 50 }, POOLED).shortPollMs).toBe(50);
  });
});

import { settingsFromOptions } from './action-queue-settings';

describe('settingsFromOptions: the pooler options', () => {
  it('fill DATABASE_POOLER and LISTEN_DATABASE_URL', () => {
    const settings = settingsFromOptions(
      { database: { url: 'postgres://app@pgbouncer:6432/queue', pooler: 'transaction', listenUrl: 'postgres://app@db:5432/queue' } },
      null,
    );
    expect(settings.DATABASE_POOLER).toBe('transaction');
    expect(settings.LISTEN_DATABASE_URL).toBe('postgres://app@db:5432/queue');
  });

  it('default to a direct connection', () => {
    expect(settingsFromOptions({ database: { url: 'postgres://app@db:5432/queue' } }, null).DATABASE_POOLER).toBe('none');
  });

  it('name the option of an invalid value', () => {
    expect(() => settingsFromOptions({ database: { url: 'postgres://app@db:5432/queue', pooler: 'statement' as 'transaction' } }, null)).toThrow(
      /database\.pooler \(DATABASE_POOLER\)/,
    );
  });
});

import { startTestApp, withTestDatabase } from '../support';

// Found by trying it: `ALTER DATABASE … SET aq.max_payload_bytes = '128kB'` (a
// unit, as postgresql.conf takes for its own settings) made every insert into
// actions fail with "invalid input syntax for type bigint" (the API: 500 on every
// enqueue, the setting named nowhere), and ' 0' or '-1' refused every payload.
// The database cannot validate a custom setting, so the service checks it at
// start-up. Seen failing before the fix: the app started on each value.
describe('aq.max_payload_bytes checked at start-up', () => {
  const db = withTestDatabase('paylimit_setting');

  it.each(['128kB', '-1', ' 0', '1e6'])('stops start-up on aq.max_payload_bytes = %j, naming the setting and what it must be', async (value) => {
    const pg = await db.connect();
    await pg.query(`ALTER DATABASE ${db.name} SET aq.max_payload_bytes = '${value}'`);
    await expect(startTestApp(db.url, { WORKER_ENABLED: 'false' })).rejects.toThrow(
      new RegExp(`aq\\.max_payload_bytes is "${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}".*a whole number of bytes`),
    );
  });

  it('starts with a whole number, 0 (no limit) or the setting unset', async () => {
    const pg = await db.connect();
    for (const value of ['262144', '0', null]) {
      await pg.query(
        value === null ? `ALTER DATABASE ${db.name} RESET aq.max_payload_bytes` : `ALTER DATABASE ${db.name} SET aq.max_payload_bytes = '${value}'`,
      );
      const started = await startTestApp(db.url, { WORKER_ENABLED: 'false' });
      await started.app.close();
    }
  });
});

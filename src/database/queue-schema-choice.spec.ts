import { chooseQueueSchema, QUEUE_INSTALLED_IN_SQL, RowsQuery } from './queue-schema-choice';

/** A query that answers the probe with `found`, recording what it was asked. */
function probe(found: boolean): RowsQuery & { asked: unknown[][] } {
  const asked: unknown[][] = [];
  const query = (sql: string, params: unknown[]) => {
    asked.push([sql, ...params]);
    return Promise.resolve([{ found }]);
  };
  return Object.assign(query, { asked });
}

describe('chooseQueueSchema', () => {
  it('takes DATABASE_SCHEMA when set, without asking the database', async () => {
    const query = probe(true);
    await expect(chooseQueueSchema('billing_queue', query)).resolves.toEqual({ schema: 'billing_queue', reason: 'DATABASE_SCHEMA is set' });
    expect(query.asked).toEqual([]);
  });

  it('keeps public when an install of 0.3 or earlier has its migrations table there', async () => {
    const query = probe(true);
    const choice = await chooseQueueSchema(undefined, query);
    expect(choice).toEqual({ schema: 'public', reason: expect.stringContaining('public.typeorm_migrations exists') });
    expect(query.asked).toEqual([[QUEUE_INSTALLED_IN_SQL, 'public', 'typeorm_migrations']]);
  });

  it('gives a new install a schema of its own, action_queue', async () => {
    await expect(chooseQueueSchema(undefined, probe(false))).resolves.toEqual({ schema: 'action_queue', reason: expect.stringContaining('a new install') });
  });
});

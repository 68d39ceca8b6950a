import { hotPathQuery, statementNaming, timedQuery } from './timed-query';

const STATEMENT = { name: 'aq_example', text: 'SELECT $1::int' };

describe('hot-path statements', () => {
  it('are prepared under their name on a direct connection', () => {
    expect(hotPathQuery(STATEMENT, [1], statementNaming('none'))).toEqual({ name: 'aq_example', text: 'SELECT $1::int', values: [1] });
  });

  it('carry no name behind a transaction pooler, where a prepared statement would meet another server connection', () => {
    const query = timedQuery(STATEMENT, [1], 500, statementNaming('transaction'));
    expect(query).toEqual({ text: 'SELECT $1::int', values: [1], query_timeout: 500 });
    expect('name' in query).toBe(false);
  });
});

import { connectCause, connectHint, connectTarget, hostPort } from './connect-failure';

describe('connect failure words', () => {
  it('name host, port, database and user of a URL, with libpq defaults, never the password', () => {
    const target = connectTarget('postgres://app:secret@db.internal:6432/queue');
    expect(target).toEqual({ host: 'db.internal', port: 6432, database: 'queue', user: 'app' });
    expect(hostPort(target)).toBe('db.internal:6432');
    expect(connectTarget('postgresql://localhost')).toEqual({ host: 'localhost', port: 5432, database: 'postgres', user: 'postgres' });
    expect(hostPort(connectTarget('postgres://u@[::1]:5433/d'))).toBe('[::1]:5433');
  });

  it('give a cause for an AggregateError with no message of its own (localhost refusing on ::1 and 127.0.0.1)', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const error = new AggregateError([refused('::1:5999'), refused('127.0.0.1:5999')], '');
    expect(connectCause(error)).toBe('connect ECONNREFUSED ::1:5999; connect ECONNREFUSED 127.0.0.1:5999');
    expect(connectHint(error, connectTarget('postgres://localhost:5999/x'))).toMatch(/^nothing accepts connections on localhost:5999/);
  });

  it('say what to check for a name that does not resolve, no answer, or a refused login', () => {
    const target = connectTarget('postgres://app@nowhere.invalid/queue');
    expect(connectHint(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' }), target)).toMatch(/does not resolve/);
    expect(connectHint(new Error('Connection terminated due to connection timeout'), target)).toMatch(/^no answer from nowhere\.invalid:5432/);
    expect(connectHint(Object.assign(new Error('password authentication failed'), { code: '28P01' }), target)).toMatch(/refused user "app"/);
  });
});

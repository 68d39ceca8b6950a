import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeAllowedValues, loadQueueSettings, loadSettings, QUEUE_SETTING_NAMES, ServiceSettings, SETTING_NAMES } from './settings';

describe('settings', () => {
  it('never echoes the value of a secret setting', () => {
    expect(() => loadSettings({ API_KEY: 'short-secret' })).toThrow(/^Invalid setting API_KEY: API_KEY must be at least 16 characters/);
    expect(() => loadSettings({ API_KEY: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it('refuses an empty API_KEY, naming it, instead of running without a key', () => {
    for (const empty of ['', '   ']) {
      expect(() => loadSettings({ API_KEY: empty })).toThrow(
        /^Invalid setting API_KEY: it is set but empty; set a key of at least 16 characters, or remove API_KEY/,
      );
    }
    expect(loadSettings({}).API_KEY).toBeUndefined();
  });

  // A key no HTTP client can send intact would lock every client out while the
  // service runs and logs nothing wrong: a header value carries bytes, read as
  // Latin-1 (a UTF-8 key never matches; fetch refuses to send it), and loses its
  // leading and trailing spaces. Seen failing before the fix: both keys started
  // a service that answered 401 to every request with the key.
  it('refuses an API_KEY that a request header cannot carry intact, naming why', () => {
    for (const key of ['ключ-ключ-ключ-ключ', '  spaces-around-key-1234  ', 'tab\tinside-the-key-1234', 'long-enough-but-ends-with-space ']) {
      expect(() => loadSettings({ API_KEY: key })).toThrow(
        /^Invalid setting API_KEY: API_KEY must be at least 16 characters of printable ASCII, without leading or trailing spaces/,
      );
    }
    expect(loadSettings({ API_KEY: 'a key with spaces inside, 16+ chars' }).API_KEY).toBe('a key with spaces inside, 16+ chars');
    expect(loadSettings({ API_KEY: '0123456789abcdef' }).API_KEY).toBe('0123456789abcdef');
  });

  it('reports every invalid setting at once, one line each', () => {
    expect(() => loadSettings({ PORT: 'x', WORKER_ENABLED: 'maybe' })).toThrow(
      'Invalid setting PORT="x": PORT must be an integer from 0 to 65535\nInvalid setting WORKER_ENABLED="maybe": WORKER_ENABLED must be true or false',
    );
  });

  it('describes the allowed values of every setting', () => {
    for (const name of SETTING_NAMES) expect(describeAllowedValues(name)).toMatch(new RegExp(`^${name} must `));
  });

  it('refuses a retry backoff cap below the base, naming both', () => {
    expect(() => loadSettings({ RETRY_BACKOFF_BASE_MS: '5000', RETRY_BACKOFF_CAP_MS: '1000' })).toThrow(
      /^Invalid setting RETRY_BACKOFF_CAP_MS=1000: must be at least RETRY_BACKOFF_BASE_MS \(5000\)$/,
    );
    expect(() => loadSettings({ RETRY_BACKOFF_CAP_MS: '999' })).toThrow(/RETRY_BACKOFF_CAP_MS=999: must be at least RETRY_BACKOFF_BASE_MS \(1000\)/);
    expect(loadSettings({ RETRY_BACKOFF_BASE_MS: '20', RETRY_BACKOFF_CAP_MS: '20' }).RETRY_BACKOFF_CAP_MS).toBe(20);
  });

  it('fills defaults and parses booleans and integers', () => {
    const s = loadSettings({ WORKER_ENABLED: 'off', WORKER_CONCURRENCY: ' 8 ', CORS_ORIGINS: '' });
    expect(s.WORKER_ENABLED).toBe(false);
    expect(s.WORKER_CONCURRENCY).toBe(8);
    expect(s.API_KEY).toBeUndefined();
    expect(s.RETENTION_DAYS).toBe(0);
    expect(s.CORS_ORIGINS).toBeUndefined();
  });
});

describe('docs/settings.md', () => {
  it('documents every setting', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'settings.md'), 'utf8');
    for (const name of SETTING_NAMES) expect(`${name}: ${doc.includes(`| \`${name}\` |`)}`).toBe(`${name}: true`);
  });

  it('splits the queue settings from the service extras, with the same defaults and rules', () => {
    const serviceOnly = SETTING_NAMES.filter((name) => !QUEUE_SETTING_NAMES.includes(name));
    expect(serviceOnly.sort()).toEqual(
      [
        'ALLOWED_HOSTS',
        'BODY_LIMIT_BYTES',
        'CORS_ORIGINS',
        'DASHBOARD_ENABLED',
        'DATABASE_URL',
        'DEMO_HANDLERS',
        'EMBEDDED_PG_DIR',
        'EMBEDDED_PG_PORT',
        'HOST',
        'LOG_LEVEL',
        'PORT',
        'REQUEST_TIMEOUT_MS',
        'TRUSTED_NETWORK',
      ].sort(),
    );
    const service = loadSettings({});
    const queue = loadQueueSettings({ PORT: 'not a port' });
    expect(service).toBeInstanceOf(ServiceSettings);
    expect(queue).not.toBeInstanceOf(ServiceSettings);
    for (const name of serviceOnly) expect(`${name}: ${name in queue}`).toBe(`${name}: false`);
    for (const name of QUEUE_SETTING_NAMES) expect(queue[name as keyof typeof queue]).toEqual(service[name as keyof typeof service]);
    expect(() => loadQueueSettings({ WORKER_CONCURRENCY: '0' })).toThrow(
      /^Invalid setting WORKER_CONCURRENCY=0: WORKER_CONCURRENCY must be an integer from 1 to 1000$/,
    );
  });
});

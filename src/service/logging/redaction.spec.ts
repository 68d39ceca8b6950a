import { loadSettings } from '../../config/settings';
import { buildPinoHttpOptions, redactRequest } from './logging.module';
import { REDACTED, redactHeaders, redactUrl } from './redaction';

describe('redaction of what the log writes', () => {
  it('replaces every credential header, proxied forms included, and keeps the others', () => {
    const headers = redactHeaders({
      authorization: 'Bearer a',
      'proxy-authorization': 'Basic b',
      'x-forwarded-authorization': 'Bearer c',
      'x-api-key': 'd',
      cookie: 'session=e',
      'x-auth-token': 'f',
      'x-amz-security-token': 'g',
      'user-agent': 'curl/8',
      'content-length': '12',
    });
    expect(headers).toEqual({
      authorization: REDACTED,
      'proxy-authorization': REDACTED,
      'x-forwarded-authorization': REDACTED,
      'x-api-key': REDACTED,
      cookie: REDACTED,
      'x-auth-token': REDACTED,
      'x-amz-security-token': REDACTED,
      'user-agent': 'curl/8',
      'content-length': '12',
    });
  });

  it('replaces credential query parameters and URL user info, and leaves other URLs as they were', () => {
    expect(redactUrl('/actions?status=failed&limit=5')).toBe('/actions?status=failed&limit=5');
    expect(redactUrl('/stats?access_token=s1&x=1')).toBe(`/stats?access_token=${encodeURIComponent(REDACTED)}&x=1`);
    expect(redactUrl('/x?api_key=s2&password=s3&sig=s4')).not.toMatch(/s2|s3|s4/);
    expect(redactUrl('http://user:pw-secret@host/p')).not.toContain('pw-secret');
  });

  it('is what pino-http logs a request with', () => {
    const options = buildPinoHttpOptions(loadSettings({}), false);
    expect(options.serializers?.req).toBeDefined();
    const logged = redactRequest({
      url: '/stats?token=t-secret',
      headers: { 'proxy-authorization': 'Basic p-secret' },
      query: { token: 't-secret', limit: '5' },
    });
    expect(JSON.stringify(logged)).not.toMatch(/t-secret|p-secret/);
    expect(logged.query).toEqual({ token: REDACTED, limit: '5' });
  });
});

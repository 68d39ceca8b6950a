import { allowedHostPredicate, hostNameOf, isLoopbackAddress } from './allowed-hosts';
import { crossSiteProblem } from './browser-guard.middleware';
import { networkExposureProblem } from './network-exposure';
import { RateLimitedLog } from './refusal-log.middleware';

describe('allowed hosts', () => {
  it('reads the host name of a Host header', () => {
    expect(hostNameOf('Example.COM:3000')).toBe('example.com');
    expect(hostNameOf('[::1]:3000')).toBe('::1');
    expect(hostNameOf('127.0.0.1')).toBe('127.0.0.1');
  });

  it('serves the loopback names, HOST and the local address without a key; any name with one; ALLOWED_HOSTS when set', () => {
    const open = allowedHostPredicate({ HOST: '0.0.0.0' });
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '::1', '0.0.0.0']) expect(`${host}: ${open(host)}`).toBe(`${host}: true`);
    expect(open('10.0.0.5', '::ffff:10.0.0.5')).toBe(true);
    expect(open('rebind.evil.example', '127.0.0.1')).toBe(false);
    expect(allowedHostPredicate({ HOST: '127.0.0.1', API_KEY: 'k'.repeat(16) })('queue.example.com')).toBe(true);
    const listed = allowedHostPredicate({ HOST: '127.0.0.1', ALLOWED_HOSTS: 'queue.internal, 10.0.0.5' });
    expect([listed('queue.internal'), listed('10.0.0.5'), listed('localhost')]).toEqual([true, true, false]);
    expect(allowedHostPredicate({ HOST: '127.0.0.1', ALLOWED_HOSTS: '*' })('anything')).toBe(true);
  });

  it('tells loopback addresses apart', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1'].some(isLoopbackAddress)).toBe(false);
  });
});

describe('cross-site writes without a key', () => {
  const req = (method: string, headers: Record<string, string>) => ({ method, headers: { host: '127.0.0.1:3000', ...headers } });

  it("lets reads, programs and the service's own pages through", () => {
    expect(crossSiteProblem(req('GET', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), [])).toBeNull();
    expect(crossSiteProblem(req('POST', {}), [])).toBeNull();
    expect(crossSiteProblem(req('POST', { 'content-type': 'application/json; charset=utf-8' }), [])).toBeNull();
    expect(crossSiteProblem(req('POST', { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' }), [])).toBeNull();
    expect(crossSiteProblem(req('POST', { origin: 'https://ops.example', 'sec-fetch-site': 'cross-site' }), ['https://ops.example'])).toBeNull();
  });

  it('refuses forms, other origins and cross-site fetches', () => {
    expect(crossSiteProblem(req('POST', { 'content-type': 'text/plain' }), [])?.status).toBe(415);
    expect(crossSiteProblem(req('POST', { 'content-type': 'application/x-www-form-urlencoded' }), [])?.status).toBe(415);
    expect(crossSiteProblem(req('POST', { origin: 'https://evil.example' }), [])?.status).toBe(403);
    expect(crossSiteProblem(req('POST', { origin: 'null' }), [])?.status).toBe(403);
    expect(crossSiteProblem(req('POST', { origin: 'http://127.0.0.1:4000' }), [])?.status).toBe(403);
    expect(crossSiteProblem(req('DELETE', { 'sec-fetch-site': 'same-site' }), [])?.status).toBe(403);
  });
});

describe('network exposure', () => {
  it('refuses a non-loopback HOST without a key unless the network is trusted', () => {
    expect(networkExposureProblem({ HOST: '0.0.0.0', TRUSTED_NETWORK: false })).toMatch(/^Refusing to listen on 0\.0\.0\.0 without API_KEY/);
    expect(networkExposureProblem({ HOST: '0.0.0.0', TRUSTED_NETWORK: true })).toBeNull();
    expect(networkExposureProblem({ HOST: '0.0.0.0', TRUSTED_NETWORK: false, API_KEY: 'k'.repeat(16) })).toBeNull();
    expect(networkExposureProblem({ HOST: '127.0.0.1', TRUSTED_NETWORK: false })).toBeNull();
  });
});

describe('refusal log', () => {
  it('writes a burst per window, then one line counting what it left out', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new RateLimitedLog(
      (l) => lines.push(l),
      2,
      1000,
      () => now,
    );
    for (let i = 0; i < 5; i++) log.log(`refused ${i}`);
    now = 1000;
    log.log('refused 5');
    expect(lines).toEqual(['refused 0', 'refused 1', '3 more refused requests were not logged in the previous 1 s', 'refused 5']);
  });
});

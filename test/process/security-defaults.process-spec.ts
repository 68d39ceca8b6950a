import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runServiceToExit, startServiceProcess, waitFor, withTestDatabase } from '../support';

const KEY = 'test-key-0123456789abcdef';

/** The open default is loud and safe; refusals are logged, secrets are not. */
describe('security defaults', () => {
  const db = withTestDatabase('secdefaults');

  it('stops start-up on an empty API_KEY, naming it, instead of running open', async () => {
    const { code, output } = await runServiceToExit({ DATABASE_URL: db.url, API_KEY: '' });
    expect(code).toBe(1);
    expect(output.trim()).toMatch(/^Invalid setting API_KEY: it is set but empty/);
  });

  it('refuses to listen on a non-loopback address without API_KEY unless TRUSTED_NETWORK says so, and warns whenever it runs without a key', async () => {
    const { code, output } = await runServiceToExit({ DATABASE_URL: db.url, HOST: '0.0.0.0', PORT: String(await freePort()) });
    expect(code).toBe(1);
    expect(output.trim()).toMatch(/^Refusing to listen on 0\.0\.0\.0 without API_KEY.*Set API_KEY.*TRUSTED_NETWORK=true/);

    const trusted = await startServiceProcess(db.url, { HOST: '0.0.0.0', TRUSTED_NETWORK: 'true', WORKER_ENABLED: 'false' });
    const local = await startServiceProcess(db.url, { WORKER_ENABLED: 'false' });
    try {
      await waitFor(async () => /No API_KEY: every route is open/.test(trusted.output()) && /No API_KEY: every route is open/.test(local.output()));
      expect(trusted.output()).toMatch(/listening on 0\.0\.0\.0, TRUSTED_NETWORK=true/);
    } finally {
      await trusted.stop();
      await local.stop();
    }
  });

  it('logs every refusal with the client address and path, and no credential from any header or URL', async () => {
    const svc = await startServiceProcess(db.url, { LOG_LEVEL: 'info', API_KEY: KEY, WORKER_ENABLED: 'false' });
    const secrets = ['wrong-secret-AAAA', 'c2VjcmV0LXByb3h5', 'fwd-secret-BBBB', 'cookie-secret-CCCC', 'url-secret-DDDD', 'api-secret-EEEE'];
    try {
      const leaky = {
        'proxy-authorization': `Basic ${secrets[1]}`,
        'x-forwarded-authorization': `Bearer ${secrets[2]}`,
        cookie: `session=${secrets[3]}`,
      };
      const refused = await fetch(`${svc.url}/stats?access_token=${secrets[4]}`, { headers: { authorization: `Bearer ${secrets[0]}`, ...leaky } });
      expect(refused.status).toBe(401);
      expect((await fetch(`${svc.url}/actions/1?api_key=${secrets[5]}`, { headers: { 'x-api-key': secrets[5] } })).status).toBe(401);
      // Requests past the key are logged with their headers and URL by the request log: still nothing secret.
      expect((await fetch(`${svc.url}/stats`, { headers: { authorization: `Bearer ${KEY}`, ...leaky } })).status).toBe(200);
      expect((await fetch(`${svc.url}/stats?access_token=${secrets[4]}`, { headers: { 'x-api-key': KEY, ...leaky } })).status).toBe(400);
      await waitFor(
        async () => /Refused GET \/actions\/1: 401/.test(svc.output()) && /"statusCode":200/.test(svc.output()) && /"statusCode":400/.test(svc.output()),
      );
    } finally {
      await svc.stop();
    }
    const output = svc.output();
    expect(output).toMatch(/Refused GET \/stats: 401 to (::ffff:)?127\.0\.0\.1/);
    for (const secret of [...secrets, KEY]) expect(`${secret}: ${output.includes(secret)}`).toBe(`${secret}: false`);
  });

  it('cuts a request whose body trickles in after REQUEST_TIMEOUT_MS with 408', async () => {
    const svc = await startServiceProcess(db.url, { REQUEST_TIMEOUT_MS: '1000', WORKER_ENABLED: 'false' });
    try {
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = tcpConnect(svc.port, '127.0.0.1');
        let received = '';
        socket.on('data', (d) => (received += d));
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.write(`POST /actions HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"type":`);
        // Never the rest: the service must not wait for it beyond its timeout.
        setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000).unref();
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toContain('REQUEST_TIMEOUT_MS');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await svc.stop();
    }
  });

  it('never prints the embedded PostgreSQL password, but a command that reads it from the data folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aq-secpg-'));
    const dataDir = join(dir, 'pg');
    const svc = await startServiceProcess({
      env: { DATABASE_URL: undefined, EMBEDDED_PG_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info', WORKER_ENABLED: 'false' },
      healthyWithinMs: 120_000,
    });
    try {
      const { password } = JSON.parse(readFileSync(join(dataDir, 'aq-credentials.json'), 'utf8')) as { password: string };
      expect(svc.output()).not.toContain(password);
      // Start-up lines are JSON: read their messages.
      const messages = svc
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '');
      expect(
        messages.some((msg) => msg.startsWith(`Connect with: PGPASSWORD="$(node -p 'require("${join(dataDir, 'aq-credentials.json')}").password')" psql`)),
      ).toBe(true);
    } finally {
      await svc.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('container files and the open default', () => {
  it('start the compose services on 0.0.0.0 (the image) without tripping the non-loopback refusal', async () => {
    const { parse } = await import('yaml');
    const { loadSettings } = await import('../../src/config/settings');
    const { networkExposureProblem } = await import('../../src/service/security/network-exposure');
    const root = join(__dirname, '..', '..');
    const image = /HOST=(\S+)/.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(image).toBe('0.0.0.0');
    const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { environment?: Record<string, string> }> };
    for (const name of ['api', 'worker']) {
      const settings = loadSettings({ HOST: image, ...compose.services[name].environment });
      expect(`${name}: ${networkExposureProblem(settings)}`).toBe(`${name}: null`);
    }
  });
});

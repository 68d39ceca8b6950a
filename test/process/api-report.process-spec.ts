import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The public surface of the package (the declarations of its three entries,
 * compiled by the jest globalSetup) must match the committed reports in
 * etc/api/: a change there is deliberate only when the report changes with it
 * (`npm run api:report`).
 */
describe('public API', () => {
  it('matches the committed API reports of the index, client and testing entries, and exports every type it exposes', () => {
    const run = spawnSync(process.execPath, [join(__dirname, '..', '..', 'dist', 'scripts', 'api-report.js'), '--check'], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`The public API changed or has holes:\n${run.stderr}${run.stdout}`);
    expect(run.stdout).toMatch(/The public API matches etc\/api\/\*\.api\.md/);
  });
});

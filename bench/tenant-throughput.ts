import { processingScenario } from './run';

/**
 * The wide workload with tenants on and off: `node dist/bench/tenant-throughput.js [--pairs=2]`
 * (docs/tenants.md; figures in bench/README.md). The wide scenario of bench/run.ts
 * (20 000 actions, 2 000 groups of 10, one service process) with every action of the
 * default tenant (off), and with the groups spread over 10 tenants (on: the claim
 * takes tenants in turn), alternated off, on, off, on; prints actions per second
 * of each run and the ratio of each pair (the issue: on >= 0.9x off).
 */
async function main(): Promise<void> {
  const pairs = Number(process.argv.find((a) => a.startsWith('--pairs='))?.slice('--pairs='.length) ?? 2);
  for (let p = 0; p < pairs; p++) {
    const off = await processingScenario('wide tenants off', [{ count: 20_000, lockExpr: 'i % 2000' }]);
    const on = await processingScenario('wide tenants on', [{ count: 20_000, lockExpr: 'i % 2000', tenantExpr: `'t' || (i % 2000 % 10)` }]);
    process.stdout.write(
      `pair ${p + 1}: off ${off.actionsPerSecond.toFixed(0)}/s, on (10 tenants) ${on.actionsPerSecond.toFixed(0)}/s, on/off ${(on.actionsPerSecond / off.actionsPerSecond).toFixed(2)}\n`,
    );
  }
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}

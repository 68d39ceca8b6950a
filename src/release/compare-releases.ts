/**
 * Orders two release versions (`0.4.0`, `0.10.1`) by their numbers, part by
 * part (so 0.10.0 is newer than 0.9.0, which a string comparison gets wrong);
 * a missing part counts 0, and a pre-release suffix (`1.0.0-rc.1`) is ignored.
 *
 * @returns a negative number when `a` is older than `b`, 0 when equal, positive when newer.
 * @throws Error when a version does not start with a number.
 */
export function compareReleases(a: string, b: string): number {
  const pa = releaseParts(a);
  const pb = releaseParts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The numeric parts of `version` before any `-suffix`. */
function releaseParts(version: string): number[] {
  const core = version.split('-')[0];
  if (!/^\d+(\.\d+)*$/.test(core)) throw new Error(`Not a release version: ${JSON.stringify(version)}`);
  return core.split('.').map(Number);
}

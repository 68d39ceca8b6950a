import { compareReleases } from './compare-releases';

describe('compareReleases', () => {
  it('compares part by part as numbers, not as text', () => {
    expect(compareReleases('0.10.0', '0.9.0')).toBeGreaterThan(0);
    expect(compareReleases('0.4.0', '0.4.1')).toBeLessThan(0);
    expect(compareReleases('1.0.0', '0.99.99')).toBeGreaterThan(0);
  });

  it('counts a missing part as 0 and ignores a pre-release suffix', () => {
    expect(compareReleases('0.4', '0.4.0')).toBe(0);
    expect(compareReleases('1.0.0-rc.1', '1.0.0')).toBe(0);
  });

  it('refuses what is not a version', () => {
    expect(() => compareReleases('next', '0.4.0')).toThrow('Not a release version: "next"');
  });
});

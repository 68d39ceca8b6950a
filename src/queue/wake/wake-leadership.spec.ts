import { RELAYED_WAKE_PAYLOAD, respondToWake, wakeLockKey } from './wake-leadership';

describe('respondToWake', () => {
  it('makes the leader claim at once', () => {
    expect(respondToWake({ payload: '', leads: true, idle: true })).toBe('claim');
  });

  it('makes an idle instance that does not lead look later instead of claiming', () => {
    expect(respondToWake({ payload: '', leads: false, idle: true })).toBe('probe-later');
  });

  it('makes an instance that is working claim at once', () => {
    expect(respondToWake({ payload: '', leads: false, idle: false })).toBe('claim');
  });

  it('makes every instance claim at once on a wake-up a leader relayed', () => {
    expect(respondToWake({ payload: RELAYED_WAKE_PAYLOAD, leads: false, idle: true })).toBe('claim');
  });

  it('probes at once after the LISTEN connection (re)connected', () => {
    expect(respondToWake({ payload: undefined, leads: false, idle: true })).toBe('probe-now');
  });
});

describe('wakeLockKey', () => {
  it('is the same for the same set of types in any order', () => {
    expect(wakeLockKey(['b', 'a'])).toBe(wakeLockKey(['a', 'b']));
  });

  it('differs between sets of types and fits an int4', () => {
    const keys = [wakeLockKey(['a']), wakeLockKey(['a', 'b']), wakeLockKey(['ab']), wakeLockKey([])];
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(Number.isInteger(k) && k >= -(2 ** 31) && k < 2 ** 31).toBe(true);
  });
});

import { checkSchedule, timeZoneProblem } from './schedule-input';

describe('schedule input', () => {
  it.each(['UTC', 'Europe/Paris', 'America/New_York', 'Etc/UTC'])('accepts the IANA zone %s', (zone) => {
    expect(timeZoneProblem(zone)).toBeNull();
  });

  it.each(['local', 'system', '+01:00', 'Mars/Olympus', '', 7])('refuses %p as a time zone: no implicit server zone', (zone) => {
    expect(timeZoneProblem(zone)).toContain('must be an IANA time zone name');
  });

  it('refuses a cron expression that never fires, naming cron', () => {
    const checked = checkSchedule({ name: 'a8', cron: '0 0 30 2 *', timeZone: 'UTC', type: 'report.build' });
    expect(checked).toEqual({ problems: ['cron "0 0 30 2 *" in timeZone "UTC" never fires: no date matches it in the next 8 years'] });
  });

  it('accepts 29 February (it fires in leap years)', () => {
    expect(checkSchedule({ name: 'leap', cron: '0 0 29 2 *', timeZone: 'Europe/Paris', type: 'report.build' })).toHaveProperty('params');
  });
});

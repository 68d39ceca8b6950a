import { groupIntoUnits } from './leased-units';
import { LeasedActionRow } from '../sql/leased-action.sql';

const row = (id: string, lockId: string | null, type: string) => ({ id, lock_id: lockId, type }) as LeasedActionRow;

describe('groupIntoUnits', () => {
  it('puts the rows of a chunked type that share a group into one unit, ids ascending, and every other row alone', () => {
    const units = groupIntoUnits(
      [row('9', '1', 'c'), row('20', '2', 's'), row('11', '1', 'c'), row('100', '1', 'c'), row('21', null, 'c'), row('30', '3', 'c')],
      (type) => type === 'c',
    );
    expect(units.map((unit) => unit.map((r) => r.id))).toEqual([['9', '11', '100'], ['20'], ['21'], ['30']]);
  });
});

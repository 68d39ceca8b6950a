import { HttpStatus } from '@nestjs/common';
import { GROUP_DEPTH_LIMIT_CONSTRAINT, groupDepthLimitOfDatabase } from './group-depth-limit.error';

describe('groupDepthLimitOfDatabase', () => {
  it('turns the depth refusal into a 429 carrying the database message', () => {
    const error = { driverError: { code: '53400', constraint: GROUP_DEPTH_LIMIT_CONSTRAINT, message: 'group 7 already holds 3' } };
    const http = groupDepthLimitOfDatabase(error);
    expect(http?.getStatus()).toBe(HttpStatus.TOO_MANY_REQUESTS);
    expect(JSON.stringify(http?.getResponse())).toContain('group 7 already holds 3');
  });

  it('leaves other errors alone, also the same SQLSTATE from another constraint', () => {
    expect(groupDepthLimitOfDatabase({ code: '53400', constraint: 'other' })).toBeNull();
    expect(groupDepthLimitOfDatabase({ code: '23505', constraint: GROUP_DEPTH_LIMIT_CONSTRAINT })).toBeNull();
    expect(groupDepthLimitOfDatabase(new Error('x'))).toBeNull();
  });
});

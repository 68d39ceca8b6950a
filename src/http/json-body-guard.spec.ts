import { jsonBodyProblem, MAX_JSON_DEPTH } from './json-body-guard.middleware';

/** The walk as it was written before its stacks were made parallel (2026-12-03): the reference for the messages. */
function referenceProblem(body: unknown): string | null {
  const reserved = new Set(['__proto__', 'constructor', 'prototype']);
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const name = path || 'body';
    if (depth > MAX_JSON_DEPTH) return `${name} is nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (typeof value === 'number' && !Number.isFinite(value)) return `${name} must be a finite number`;
    if (typeof value === 'string' && !value.isWellFormed()) return `${name} contains an unpaired UTF-16 surrogate`;
    if (typeof value === 'string' && value.includes('\u0000')) return `${name} contains the NUL character (U+0000), which PostgreSQL cannot store`;
    if (value === null || typeof value !== 'object') continue;
    const dtoLevel = path === '' || /^actions\.\d+$/.test(path);
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (!key.isWellFormed()) return `${name} has a key with an unpaired UTF-16 surrogate`;
      if (key.includes('\u0000')) return `${name} has a key with the NUL character (U+0000), which PostgreSQL cannot store`;
      if (dtoLevel && reserved.has(key)) return `property ${childPath} should not exist`;
      if (reserved.has(key)) return `${childPath} uses a reserved key name (__proto__, constructor, prototype): rename it`;
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}

describe('jsonBodyProblem', () => {
  const deep = (levels: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < levels; i++) v = { a: v };
    return v;
  };
  const bodies: string[] = [
    '{}',
    '[]',
    '"x"',
    'null',
    '{"actions":[{"type":"a","lockId":"1","payload":{"n":1,"m":[1,2,{"x":"y"}]}},{"type":"b"}]}',
    '{"actions":[{"type":"a"},{"type":"b","payload":{"x":"a\\u0000b"}}]}',
    '{"actions":[{"type":"a","__proto__":1}]}',
    '{"actions":[{"type":"a","payload":{"constructor":1}}]}',
    '{"actions":[{"type":"a","payload":{"prototype":{"x":1}}}]}',
    '{"prototype":1}',
    '{"":{"__proto__":1}}',
    '{"":{"":{"x":"\\ud800"}}}',
    '{"actions.3":{"constructor":1}}',
    '{"actions":{"7":{"constructor":1}}}',
    '{"a":{"b\\u0000":1}}',
    '{"a":{"\\udc00":1}}',
    '{"type":"a","payload":{"k":"\\udfff"}}',
    '{"x":[1,2,[3,{"y":"\\u0000"}]]}',
  ];
  it.each(bodies)('gives the message the reference walk gives: %s', (text) => {
    const body: unknown = JSON.parse(text);
    expect(jsonBodyProblem(body)).toBe(referenceProblem(body));
  });

  it('names the path of a value nested too deep or not finite, as the reference walk does', () => {
    for (const body of [
      deep(MAX_JSON_DEPTH),
      deep(MAX_JSON_DEPTH + 1),
      { actions: [{ type: 'a', payload: deep(MAX_JSON_DEPTH) }] },
      { a: [1, Infinity] },
      { a: { b: NaN } },
    ]) {
      expect(jsonBodyProblem(body)).toBe(referenceProblem(body));
    }
    expect(jsonBodyProblem({ a: [1, Infinity] })).toBe('a.1 must be a finite number');
    expect(jsonBodyProblem(deep(MAX_JSON_DEPTH + 1))).toMatch(/ is nested deeper than 64 levels$/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateActionDto } from './actions/dto/create-action.dto';
import { DASHBOARD_PATH } from './dashboard/dashboard-assets';
import { DEMO_ACTION_TYPES } from './demo/instance.handlers';
import { DOCS_PATH } from './docs/openapi';
import { QueueValidationPipe } from './http/validation.pipe';

/**
 * The README's first screen carries the first steps, each a line to copy:
 * start the service, enqueue one action by `lockId` and one by `groupKey`
 * (curl lines whose bodies the real validation accepts, of types the demo
 * handlers run), watch them (the dashboard's URL) and read the API (the
 * OpenAPI URL). A reader of a fresh clone sees them without scrolling.
 */

/** Lines of a first screen: a terminal or a rendered page above the fold. */
const FIRST_SCREEN_LINES = 45;
/** Where `npm start` listens by default (HOST, PORT). */
const BASE_URL = 'http://127.0.0.1:3000';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const firstScreen = readme.split('\n').slice(0, FIRST_SCREEN_LINES);

/** The JSON body (`-d '…'`) of every curl line of the first screen that POSTs to /actions. */
function enqueueBodies(): Record<string, unknown>[] {
  return firstScreen
    .filter((line) => /^curl\b.*-X POST\s+\S+\/actions\s/.test(line))
    .map((line) => {
      expect(line).toContain(`${BASE_URL}/actions`);
      expect(line).toMatch(/-H 'Content-Type: application\/json'/i);
      const body = /-d '([^']+)'/.exec(line)?.[1];
      expect(body).toBeDefined();
      return JSON.parse(body!) as Record<string, unknown>;
    });
}

/** What POST /actions makes of `body`: the DTO, or the 400's messages. */
async function validate(body: unknown): Promise<CreateActionDto | string[]> {
  try {
    return (await new QueueValidationPipe().transform(body, { type: 'body', metatype: CreateActionDto })) as CreateActionDto;
  } catch (error) {
    return ((error as { getResponse(): { message: string[] } }).getResponse?.().message ?? [String(error)]) as string[];
  }
}

describe('README first screen', () => {
  it('starts the service with one command', () => {
    expect(firstScreen.some((line) => /^npm ci && npm start\b/.test(line))).toBe(true);
  });

  it('enqueues one action by lockId and one by groupKey with curl lines the API accepts, of demo handler types', async () => {
    const bodies = enqueueBodies();
    expect(bodies.some((body) => typeof body.lockId === 'string' && body.groupKey === undefined)).toBe(true);
    expect(bodies.some((body) => typeof body.groupKey === 'string' && body.lockId === undefined)).toBe(true);
    for (const body of bodies) {
      expect(await validate(body)).toBeInstanceOf(CreateActionDto);
      expect(Object.values(DEMO_ACTION_TYPES)).toContain(body.type);
    }
  });

  it('gives the dashboard and OpenAPI URLs to copy', () => {
    const text = firstScreen.join('\n');
    expect(text).toMatch(new RegExp(`${BASE_URL}${DASHBOARD_PATH}(?![\\w/-])`));
    expect(text).toMatch(new RegExp(`${BASE_URL}/${DOCS_PATH}(?![\\w/-])`));
  });
});

import { INestApplication } from '@nestjs/common';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Browser, chromium, Page } from 'playwright-core';
import request from 'supertest';
import { cloneTestDatabase, sleep, startTestApp, TestDatabase, waitFor } from '../support';

/**
 * The dashboard end to end, in Debian's headless Chromium driven by
 * playwright-core: key prompt, live overview, blocked group retried from its
 * button, the group timeline in id order, action and actions pages, charts,
 * phone width (no page wider than 390 px; the Operations tables as cards,
 * their buttons on screen), flow control (a group and the queue paused and
 * resumed from the Operations page, rate limits per type and per group set
 * and removed from its editor, checked in the database), the Tenants view (a
 * tenant's backlog) and the tenant on an action and its group. Screenshots go to DASHBOARD_SCREENSHOTS_DIR (default
 * <tmpdir>/aq-dashboard-screenshots); docs/operations.md's come from
 * `DASHBOARD_SCREENSHOTS_DIR=docs npx jest test/process/dashboard-browser.process-spec.ts`.
 */

// Browser globals, used only inside page.evaluate() callbacks (this file compiles without the DOM library).
declare const window: { innerWidth: number; stillThisPage?: boolean };
declare const document: { documentElement: { scrollWidth: number }; activeElement: { textContent: string | null; id: string } | null };
declare const sessionStorage: Record<string, string>;
declare const localStorage: Record<string, string>;

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** No network but localhost here: without these Chromium keeps trying to reach Google's services. */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SHOTS = process.env.DASHBOARD_SCREENSHOTS_DIR ?? join(tmpdir(), 'aq-dashboard-screenshots');
const KEY = 'browser-test-key-0123456789';

describe('dashboard in headless Chromium', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let url: string;
  let browser: Browser;
  let page: Page;
  let pg: Client;
  const requestedUrls: string[] = [];
  const problems: string[] = [];
  const groupIds: string[] = [];

  /** The REST API with the key, for the test's own writes. */
  const api = () => ({
    post: (path: string, body: object) => request(url).post(path).set('Authorization', `Bearer ${KEY}`).send(body),
  });
  /** The active pauses, from the database (not the page). */
  const activePauses = async () =>
    (
      await pg.query<{ scope: string; lock_id: string | null }>(
        `SELECT scope, lock_id::text AS lock_id FROM action_pauses WHERE until IS NULL OR until > now() ORDER BY id`,
      )
    ).rows;
  const actionState = async (id: string) =>
    (await pg.query<{ status: string; attempts: number }>(`SELECT status, attempts FROM actions WHERE id = $1`, [id])).rows[0];
  const text = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim() ?? '';
  const waitForText = (testId: string, wanted: RegExp | string, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const value = await page
          .getByTestId(testId)
          .textContent({ timeout: 1_000 })
          .catch(() => null);
        return value !== null && (typeof wanted === 'string' ? value.trim() === wanted : wanted.test(value));
      },
      timeoutMs,
      100,
    );

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium; .ci/run does it) or set CHROMIUM_PATH`);
    mkdirSync(SHOTS, { recursive: true });
    db = await cloneTestDatabase('dashboard_browser');
    ({ app, url } = await startTestApp(db.url, { API_KEY: KEY, WORKER_CONCURRENCY: '4', WORKER_POLL_INTERVAL_MS: '200' }));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    // playwright-core gives each launch a fresh, empty user data dir.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(15_000);
    page.on('request', (r) => requestedUrls.push(r.url()));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    // A refused key shows as failed loads (401); anything else in the console is a fault (CSP refusals included).
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    page.on('dialog', (d) => void d.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await pg?.end();
    await app?.close();
    await db?.drop();
  });

  it('asks for the API key, and a wrong key gets no data', async () => {
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/stats') statuses.push(r.status());
    });
    await page.goto(`${url}/ui/`);
    await page.getByLabel('API key', { exact: true }).fill('wrong-key-0123456789-nope');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByTestId('key-rejected').waitFor();
    expect(await page.getByTestId('status-counts').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Groups' }).count()).toBe(0);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((s) => s === 401)).toBe(true);
    // The refused key is not kept.
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([]);
  });

  it('shows the counts on the overview and follows them live, without reloading the page', async () => {
    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await waitForText('count-done', '0');
    await page.evaluate(() => (window.stillThisPage = true));
    // Group 501: a head that fails once (one attempt allowed, so it blocks), then four more; group 502: four that run.
    const { body } = await api()
      .post('/actions/batch', {
        actions: [
          { type: 'instance.delete', lockId: '501', payload: { durationMs: 100, failAttempts: 1 }, maxAttempts: 1 },
          ...[1, 2, 3, 4].map((n) => ({ type: 'instance.update', lockId: '501', payload: { durationMs: 150, step: n } })),
          ...[1, 2, 3, 4].map((n) => ({ type: 'instance.create', lockId: '502', payload: { durationMs: 50, step: n } })),
        ],
      })
      .expect(201);
    groupIds.push(...body.actions.slice(0, 5).map((a: { id: string }) => a.id));
    await waitForText('count-done', '4');
    await waitForText('count-blocked', '1');
    expect(await text('count-failed')).toBe('1');
    expect(await text('count-behind')).toBe('4');
    expect(await text('oldest-due')).toBe('–'); // what waits is behind the blocked head, not due
    expect(await page.evaluate(() => window.stillThisPage)).toBe(true);
  });

  it('opens the blocked group, retries its head from the button with the keyboard, and sees the group drain in id order', async () => {
    await page.getByRole('link', { name: 'see blocked groups' }).click();
    const row = page.locator('[data-testid=blocked-groups] tr[data-lock-id="501"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('simulated failure of delete');
    await row.getByRole('link', { name: '501' }).click();
    await page.getByTestId('group-blocked').waitFor();
    const retry = page.getByRole('button', { name: 'Retry head of group 501' });
    await retry.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('group-empty').waitFor({ timeout: 20_000 });
    await waitFor(async () => (await page.locator('[data-testid=timeline-table] tbody tr').count()) === 5 || null, 10_000);
    const rows = await page.locator('[data-testid=timeline-table] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-action-id')!,
        startedAt: tr.getAttribute('data-started-at')!,
        finishedAt: tr.getAttribute('data-finished-at')!,
        text: tr.textContent ?? '',
      })),
    );
    expect(rows.map((r) => r.id)).toEqual(groupIds);
    for (const r of rows) expect(r.text).toContain('done');
    expect(rows[0].text).toMatch(/1:\s*error.*2:\s*done/);
    // One at a time, in id order: each action started after the previous one finished.
    for (let i = 1; i < rows.length; i++) expect(Date.parse(rows[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(rows[i - 1].finishedAt));
    await page.screenshot({ path: join(SHOTS, 'dashboard-group-timeline.png'), fullPage: true });
    // The state its handlers stored (ctx.groupState): none yet, then its version once one is stored.
    expect(await text('group-stored-state')).toContain('No stored state');
    await pg.query(`INSERT INTO action_group_states (lock_id, state, version) VALUES (501, '{"n": 4}', 4)`);
    await waitForText('group-stored-state-version', '4');
  });

  it('shows an action with its payload and attempt trace, and the filtered list of actions', async () => {
    await page.getByRole('link', { name: `#${groupIds[0]}` }).click();
    await page.getByTestId('action-trace').waitFor();
    expect(await text('action-payload')).toContain('"failAttempts": 1');
    const outcomes = await page.locator('[data-testid=action-trace] tbody tr').allTextContents();
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toContain('error');
    expect(outcomes[1]).toContain('done');
    expect(await page.getByRole('button', { name: /Retry|Cancel/ }).count()).toBe(0); // done: nothing to do
    // A done action says how often it ran, not a budget it no longer has ("0/5 used": a success is not charged).
    expect(await text('action-runs')).toBe('2 runs');

    await page.getByRole('link', { name: 'Actions', exact: true }).first().click();
    await page.getByLabel('lockId').fill('502');
    await page.getByRole('button', { name: 'Filter' }).click();
    await waitFor(async () => (await page.locator('[data-testid=actions-table] tbody tr').count()) === 4 || null, 10_000);
    // The Status list acts at once, as every other list of the dashboard: no Filter press.
    await page.getByLabel('Status').selectOption('pending');
    await page.getByText('No action matches.').waitFor();
    await page.getByLabel('Status').selectOption('done');
    await waitFor(async () => (await page.locator('[data-testid=actions-table] tbody tr').count()) === 4 || null, 10_000);
    for (const line of await page.locator('[data-testid=actions-table] tbody tr').allTextContents()) expect(line).toMatch(/502.*done/);
    expect(await page.getByTestId('action-runs').allTextContents()).toEqual(['1 run', '1 run', '1 run', '1 run']);
  });

  it('shows a string group key in the list, on the action and on its group, and finds the group by its key', async () => {
    const key = 'tenant:42';
    const { body } = await api()
      .post('/actions/batch', { actions: [1, 2].map((n) => ({ type: 'instance.update', groupKey: key, payload: { durationMs: 10, step: n } })) })
      .expect(201);
    const lockId = body.actions[0].lockId as string;
    await page.getByRole('link', { name: 'Actions', exact: true }).first().click();
    // The filters of the previous test are still there: lockId and groupKey together would be refused (400).
    await page.getByLabel('lockId').fill('');
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('groupKey').fill(key);
    await page.getByRole('button', { name: 'Filter' }).click();
    await waitFor(async () => (await page.locator('[data-testid=actions-table] tbody tr').count()) === 2 || null, 10_000);
    const keyed = page.locator(`[data-testid=actions-table] a[data-group-key="${key}"]`);
    expect(await keyed.count()).toBe(2);
    expect(await keyed.first().textContent()).toBe(key);

    await keyed.first().click();
    await waitForText('group-key', key);
    expect(await page.getByRole('heading', { name: /Group/ }).first().textContent()).toContain(`lock id ${lockId}`);

    await page.getByRole('link', { name: 'Groups', exact: true }).first().click();
    await page.getByLabel('Find a group by lockId or groupKey').fill(key);
    await page.getByRole('button', { name: 'Open' }).click();
    await waitForText('group-key', key);
    expect(page.url()).toContain(`/groups/${lockId}`);
  });

  it("lists a tenant's backlog in the Tenants view, and shows the tenant on its action and its group", async () => {
    // Tenant acme: three actions of one group scheduled a day ahead (pending all along), so its backlog stays 3.
    const runAt = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const { body } = await api()
      .post('/actions/batch', {
        actions: [1, 2, 3].map((n) => ({ type: 'instance.update', tenant: 'acme', groupKey: 'acme-orders', runAt, payload: { durationMs: 10, step: n } })),
      })
      .expect(201);
    const ids = body.actions.map((a: { id: string }) => a.id as string);
    await page.getByRole('link', { name: 'Tenants', exact: true }).click();
    const row = page.locator('[data-testid=tenants-table] tr[data-tenant="acme"]');
    await row.waitFor();
    await waitFor(async () => ((await row.getByTestId('tenant-backlog').textContent())?.trim() === '3' ? true : null), 10_000);
    expect((await row.getByTestId('tenant-running').textContent())?.trim()).toBe('0');
    expect((await row.getByTestId('tenant-oldest-wait').textContent())?.trim()).toBe('nothing due'); // scheduled, not due
    expect(await row.textContent()).toContain('no cap'); // no settings: weight 1, no cap
    await page.screenshot({ path: join(SHOTS, 'dashboard-tenants.png'), fullPage: true });

    await page.getByRole('link', { name: 'Actions', exact: true }).first().click();
    await page.getByLabel('Action id').fill(ids[0]);
    await page.getByTestId('action-id-search').click();
    await waitForText('action-tenant', 'acme');
    await page.locator('[data-testid=action-fields] a[data-group-key="acme-orders"]').click();
    await waitForText('group-tenant', /Tenant acme/);

    // Out of the way of the later tests: cancelled, they leave the backlog.
    for (const id of ids) await request(url).post(`/actions/${id}/cancel`).set('Authorization', `Bearer ${KEY}`).expect(200);
    await page.getByRole('link', { name: 'Tenants', exact: true }).click();
    await waitFor(async () => ((await row.count()) === 0 ? true : null), 10_000);
  });

  it('lists a recurring action with its next run, counts a bulk retry by dry run, applies it and shows it in the audit', async () => {
    const nextYear = new Date().getUTCFullYear() + 1;
    await api().post('/schedules', { name: 'yearly-report', cron: '0 0 1 1 *', timeZone: 'UTC', type: 'instance.create' }).expect(201);
    // Group 700: three actions that fail their only attempt under `skip`, so all three end failed.
    const { body } = await api()
      .post('/actions/batch', {
        actions: [1, 2, 3].map((n) => ({
          type: 'instance.delete',
          lockId: '700',
          payload: { durationMs: 10, failAttempts: 1, step: n },
          maxAttempts: 1,
          onFailure: 'skip',
        })),
      })
      .expect(201);
    const failedIds = body.actions.map((a: { id: string }) => a.id);
    await waitFor(
      async () => (await request(url).get('/actions?lockId=700&status=failed').set('Authorization', `Bearer ${KEY}`)).body.items.length === 3,
      20_000,
    );

    // The stack of a failed attempt, and the search by id.
    await page.getByRole('link', { name: 'Actions', exact: true }).first().click();
    await page.getByLabel('Action id').fill(failedIds[0]);
    await page.getByTestId('action-id-search').click();
    await page.getByTestId('action-trace').waitFor();
    await page.getByTestId('attempt-stack').first().locator('summary').click();
    expect(await page.getByTestId('attempt-stack').first().textContent()).toContain('at simulateCloudCall');

    await page.getByRole('link', { name: 'Operations', exact: true }).click();
    // Shown in the browser's time zone: a date, whatever the zone; the API gives the instant.
    await waitForText('schedule-next-run', /\d{4}|\d{1,2}:\d{2}/);
    const listed = await request(url).get('/schedules').set('Authorization', `Bearer ${KEY}`).expect(200);
    expect(listed.body.items[0]).toMatchObject({ name: 'yearly-report', nextRunAt: `${nextYear}-01-01T00:00:00.000Z` });
    await page.getByLabel('lockId').fill('700');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByTestId('bulk-dry-run').click();
    await waitForText('bulk-matched', '3');
    await page.getByTestId('bulk-apply').click();
    await waitForText('bulk-result', /retry \d+: 3 of 3 changed/);
    // The audit, newest first: the applied retry, then its dry run; cells: id, operation, who, when, filter, matched, applied.
    const cells = await waitFor(async () => {
      const row = await page.getByTestId('bulk-audit').locator('tbody tr').first().locator('td').allTextContents();
      return row[1] === 'retry' ? row : null;
    }, 10_000);
    expect(cells[2]).toMatch(/^api-key:[0-9a-f]{12}$/);
    expect(cells.slice(5)).toEqual(['3', '3']);
    expect(await page.getByTestId('bulk-audit').locator('tbody tr').nth(1).locator('td').nth(1).textContent()).toBe('retry (dry run)');
    const copies = await request(url).get('/actions?lockId=700').set('Authorization', `Bearer ${KEY}`);
    expect(copies.body.items.filter((a: { retryOf?: string | null }) => failedIds.includes(a.retryOf ?? '')).length).toBe(3);
  });

  it('pauses a group from the Operations page: its action waits while another group runs, and runs once resumed from its row', async () => {
    await page.getByRole('link', { name: 'Operations', exact: true }).click();
    await waitForText('queue-state', 'running');
    await page.getByTestId('pause-scope').selectOption('group');
    await page.getByTestId('pause-target').fill('810');
    await page.getByLabel('Reason').fill('browser test');
    await page.getByTestId('pause-submit').click();
    const row = page.locator('[data-testid=pauses] tr[data-lock-id="810"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('browser test');
    expect(await activePauses()).toEqual([{ scope: 'group', lock_id: '810' }]);
    await page.screenshot({ path: join(SHOTS, 'dashboard-operations.png'), fullPage: true });

    // One action into the paused group 810, one into 811: 811's runs (the worker claims), 810's never starts.
    const { body } = await api()
      .post('/actions/batch', { actions: ['810', '811'].map((lockId) => ({ type: 'instance.create', lockId, payload: { durationMs: 10 } })) })
      .expect(201);
    const [held, free] = body.actions.map((a: { id: string }) => a.id);
    await waitFor(async () => (await actionState(free)).status === 'done', 20_000);
    await sleep(500); // a few more claim rounds (poll every 200 ms) for a claim that must not come
    expect(await actionState(held)).toEqual({ status: 'pending', attempts: 0 });

    await row.getByRole('button', { name: /^Resume pause \d+$/ }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByTestId('pauses-empty').waitFor();
    expect(await activePauses()).toEqual([]);
    await waitFor(async () => (await actionState(held)).status === 'done', 20_000);
  });

  it('pauses, drains and resumes the whole queue from the Operations page', async () => {
    await page.getByTestId('queue-pause').click();
    await waitForText('queue-state', /^paused/);
    expect(await activePauses()).toEqual([{ scope: 'queue', lock_id: null }]);
    await page.locator('[data-testid=pauses] tr[data-scope="queue"]').waitFor();
    const { body } = await api()
      .post('/actions', { type: 'instance.create', lockId: '812', payload: { durationMs: 10 } })
      .expect(201);
    await sleep(1_500); // nothing may start while the queue is paused: several claim rounds
    expect(await actionState(body.id)).toEqual({ status: 'pending', attempts: 0 });
    await page.getByTestId('queue-resume').click();
    await waitForText('queue-state', 'running');
    expect(await activePauses()).toEqual([]);
    await waitFor(async () => (await actionState(body.id)).status === 'done', 20_000);

    // A drain pauses the queue too, and says when nothing runs any more.
    await page.getByTestId('queue-drain').click();
    await waitForText('queue-state', 'paused, drained');
    expect(await activePauses()).toEqual([{ scope: 'queue', lock_id: null }]);
    await page.getByTestId('queue-resume').click();
    await waitForText('queue-state', 'running');
    expect(await activePauses()).toEqual([]);
  });

  it('sets rate limits per type and per group from the editor, lists the groups, and at phone width shows cards with Resume on screen', async () => {
    await page.getByRole('link', { name: 'Operations', exact: true }).click();
    const limitForm = async (scope: 'type' | 'group', target: string, perSecond: string, burst: string) => {
      await page.getByTestId('rate-limit-scope').selectOption(scope);
      await page.getByTestId('rate-limit-target').fill(target);
      await page.getByTestId('rate-limit-per-second').fill(perSecond);
      await page.getByTestId('rate-limit-burst').fill(burst);
      await page.getByTestId('rate-limit-submit').click();
    };
    await limitForm('type', 'instance.update', '50', '5');
    await page.locator('[data-testid=rate-limits] tr[data-type="instance.update"]').waitFor();
    await limitForm('group', '814', '2', '');
    await page.locator('[data-testid=group-rate-limits] tr[data-lock-id="814"]').waitFor();
    await limitForm('group', 'tenant:phone', '0.5', '1');
    const keyed = page.locator('[data-testid=group-rate-limits] a[data-group-key="tenant:phone"]');
    await keyed.waitFor();
    const { rows: typeRows } = await pg.query(`SELECT per_second, burst FROM action_rate_limits WHERE type = 'instance.update'`);
    expect(typeRows).toEqual([{ per_second: 50, burst: 5 }]);
    const { rows: groupRows } = await pg.query(`SELECT lock_id::text AS lock_id, per_second, burst FROM action_group_rate_limits ORDER BY per_second DESC`);
    expect(groupRows).toEqual([
      { lock_id: '814', per_second: 2, burst: 1 },
      { lock_id: expect.any(String), per_second: 0.5, burst: 1 },
    ]);

    // A paused group with an action in it: a pause row to resume, and the overview counts it as paused.
    await page.getByTestId('pause-scope').selectOption('group');
    await page.getByTestId('pause-target').fill('813');
    await page.getByTestId('pause-submit').click();
    const pauseRow = page.locator('[data-testid=pauses] tr[data-lock-id="813"]');
    await pauseRow.waitFor();
    await api()
      .post('/actions', { type: 'instance.create', lockId: '813', payload: { durationMs: 10 } })
      .expect(201);

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${url}/ui/#/operations`);
      await pauseRow.waitFor();
      await page.locator('[data-testid=group-rate-limits] tr[data-lock-id="814"]').waitFor();
      // Nothing wider than the screen: the tables are cards, and each row's button is on screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      for (const button of [
        pauseRow.getByRole('button', { name: /^Resume pause \d+$/ }),
        page.getByRole('button', { name: 'Remove the rate limit of group 814' }),
        page.getByRole('button', { name: 'Clear the rate limit override of instance.update' }),
      ]) {
        const box = await button.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      }
      await page.screenshot({ path: join(SHOTS, 'dashboard-operations-phone.png'), fullPage: true });

      await page.getByRole('button', { name: 'Remove the rate limit of group 814' }).click();
      await page.locator('[data-testid=group-rate-limits] tr[data-lock-id="814"]').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Remove the rate limit of group tenant:phone' }).click();
      await page.getByTestId('group-rate-limits-empty').waitFor();
      await page.getByRole('button', { name: 'Clear the rate limit override of instance.update' }).click();
      await page.getByTestId('rate-limits-empty').waitFor();
      expect((await pg.query(`SELECT 1 FROM action_group_rate_limits UNION ALL SELECT 1 FROM action_rate_limits WHERE per_second IS NOT NULL`)).rows).toEqual(
        [],
      );

      await page.getByRole('link', { name: 'Overview' }).click();
      await waitForText('count-paused', '1');
      await page.getByRole('link', { name: 'Operations', exact: true }).click();
      await pauseRow.getByRole('button', { name: /^Resume pause \d+$/ }).click();
      await page.getByTestId('pauses-empty').waitFor();
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it('charts the last 15 minutes on the overview and stays usable at phone width', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    // A trickle of work while the charts catch up (endings are counted once 5 s old, in 10-second buckets).
    const trickle = setInterval(() => {
      // supertest sends on then(); errors show up as a missing count below.
      void api()
        .post('/actions/batch', {
          actions: Array.from({ length: 8 }, (_, i) => ({ type: 'instance.update', lockId: String(600 + (i % 4)), payload: { durationMs: 20 + 10 * i } })),
        })
        .then(
          () => undefined,
          () => undefined,
        );
    }, 1_000);
    try {
      await waitForText('ended-15min', /^([2-9]\d|\d{3,}) actions ended/, 45_000);
    } finally {
      clearInterval(trickle);
    }
    await page.screenshot({ path: join(SHOTS, 'dashboard-overview.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    for (const route of ['#/', '#/groups', '#/groups/501', '#/actions', '#/operations']) {
      await page.goto(`${url}/ui/${route}`);
      await page.locator('main h2').first().waitFor();
      // Charts follow the new width on their next frame: allow the layout a moment to settle.
      let overflow = -1;
      await waitFor(async () => (overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) === 0, 3_000, 100).catch(
        () => undefined,
      );
      expect(`${route}: ${overflow}`).toBe(`${route}: 0`);
    }
    await page.goto(`${url}/ui/#/`);
    await page.reload();
    await page.getByTestId('count-done').waitFor();
    await page.screenshot({ path: join(SHOTS, 'dashboard-overview-phone.png'), fullPage: true });
    // Keyboard: the first Tab reaches the skip link, which moves the focus to the page.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('never puts the key in a URL, keeps it for the tab only, and forgets it on request', async () => {
    expect(requestedUrls.length).toBeGreaterThan(20);
    expect(requestedUrls.filter((u) => u.includes(KEY))).toEqual([]);
    expect(page.url()).not.toContain(KEY);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([KEY]);
    expect(await page.evaluate(() => Object.values(localStorage))).toEqual([]);
    expect((await page.context().cookies()).length).toBe(0);
    await page.getByRole('button', { name: 'Forget key' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([]);
    expect(problems).toEqual([]);
  });
});

import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { ServerResponse } from 'node:http';

/** Where the dashboard is served. */
export const DASHBOARD_PATH = '/ui';

/**
 * The built dashboard (`npm run build` runs `vite build` into dist/ui). This
 * file runs compiled (dist/src/dashboard/) or through ts-jest (src/dashboard/).
 */
export const DASHBOARD_ASSETS_DIR = __dirname.includes(`${sep}dist${sep}`) ? join(__dirname, '..', '..', 'ui') : join(__dirname, '..', '..', 'dist', 'ui');

/** Whether the built dashboard is there (its index.html). */
export function dashboardAssetsBuilt(): boolean {
  return existsSync(join(DASHBOARD_ASSETS_DIR, 'index.html'));
}

/** Whether an instance with these settings serves the dashboard: API on and DASHBOARD_ENABLED. */
export function dashboardServed(settings: { API_ENABLED: boolean; DASHBOARD_ENABLED: boolean }): boolean {
  return settings.API_ENABLED && settings.DASHBOARD_ENABLED;
}

/**
 * Content Security Policy of the dashboard's files: its own scripts, styles and
 * API only; no inline script, nothing from another origin, no framing. Unlike
 * helmet's default it has no `upgrade-insecure-requests`, which would make a
 * browser fetch the assets over HTTPS from a service reached over plain HTTP.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers of every dashboard file: the CSP above; the page itself is
 * revalidated on each load, the content-hashed files under assets/ cached for a year.
 */
export function setDashboardHeaders(res: ServerResponse, path: string): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('Cache-Control', path.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
}

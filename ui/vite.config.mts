import { defineConfig } from 'vite';

/**
 * Builds the dashboard (ui/) into dist/ui, served at /ui by the service
 * (src/dashboard/). Run from the package root (`npm run build`). Preact's JSX
 * runtime; every dependency is bundled, so the page loads nothing from
 * another origin.
 */
export default defineConfig({
  root: 'ui',
  // Relative: the page works under any path the service is mounted at (the routes live in the hash).
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/ui',
    emptyOutDir: true,
    // Fonts and images stay files of their own (the page's CSP has no data: fonts).
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
});

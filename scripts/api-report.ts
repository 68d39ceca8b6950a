/**
 * The API report of the package: one file per public entry in `etc/api/`,
 * written by API Extractor from the compiled declarations (`npm run build`),
 * listing every exported name and signature.
 *
 * - `npm run api:report` rewrites the reports: commit them with a deliberate
 *   change of the public surface.
 * - `node dist/scripts/api-report.js --check` (test/process/api-report.process-spec.ts, so CI)
 *   fails when the declarations no longer match the committed reports, or when
 *   an entry exposes a type it does not export.
 */
import { Extractor, ExtractorConfig, ExtractorLogLevel, ExtractorMessageCategory, IConfigFile } from '@microsoft/api-extractor';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';

/** The repository root, whether this file runs compiled (dist/scripts) or through ts-node (scripts). */
const ROOT = __dirname.includes(`${sep}dist${sep}`) ? join(__dirname, '..', '..') : join(__dirname, '..');

/** Each public entry of package.json `exports`: its report name and its compiled declarations. */
export const PUBLIC_ENTRIES = [
  { name: 'index', declarations: 'dist/src/index.d.ts' },
  { name: 'client', declarations: 'dist/src/client/index.d.ts' },
  { name: 'testing', declarations: 'dist/src/testing/index.d.ts' },
];

/** Where the committed reports live. */
export const API_REPORT_FOLDER = join(ROOT, 'etc', 'api');

function configFor(entry: (typeof PUBLIC_ENTRIES)[number], tempFolder: string): IConfigFile {
  return {
    projectFolder: ROOT,
    mainEntryPointFilePath: join(ROOT, entry.declarations),
    bundledPackages: [],
    compiler: { overrideTsconfig: { compilerOptions: { lib: ['ES2022', 'ES2024.String', 'DOM'], types: ['node'], skipLibCheck: true } } },
    apiReport: { enabled: true, reportFileName: entry.name, reportFolder: API_REPORT_FOLDER, reportTempFolder: tempFolder },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // A public signature naming a type that no entry exports: a hole in the surface.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.Error, addToApiReportFile: false },
        // Public items are marked with Nest's @publicApi, not TSDoc release tags.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        'ae-unresolved-link': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        // Fields of generated and plain data types are described by their type's comment.
        'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
      },
      // The docs are JSDoc as Nest writes it (@param without a hyphen, @publicApi), not strict TSDoc.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}

/**
 * Runs API Extractor on every public entry.
 * @param update true: rewrite the committed reports; false: only compare with them.
 * @returns the problems found (empty when the surface matches the reports).
 */
export function runApiReport(update: boolean): string[] {
  const tempFolder = mkdtempSync(join(tmpdir(), 'aq-api-report-'));
  const problems: string[] = [];
  try {
    for (const entry of PUBLIC_ENTRIES) {
      const config = ExtractorConfig.prepare({
        configObject: configFor(entry, tempFolder),
        configObjectFullPath: join(ROOT, 'api-extractor.json'),
        packageJsonFullPath: join(ROOT, 'package.json'),
      });
      const result = Extractor.invoke(config, {
        localBuild: update,
        messageCallback: (message) => {
          // Console messages only narrate (report written, report changed): the result says that.
          const problem = message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning;
          if (problem && message.category !== ExtractorMessageCategory.Console) {
            problems.push(`${entry.name}: ${message.text}${message.sourceFilePath ? ` (${message.sourceFilePath}:${message.sourceFileLine})` : ''}`);
          }
          message.handled = true;
        },
      });
      if (result.apiReportChanged && !update) {
        problems.push(
          `${entry.name}: the public API differs from etc/api/${entry.name}.api.md. If the change is deliberate, run \`npm run api:report\` and commit the report.`,
        );
      } else if (!result.succeeded && problems.length === 0) {
        problems.push(`${entry.name}: API Extractor failed (${result.errorCount} errors)`);
      }
    }
  } finally {
    rmSync(tempFolder, { recursive: true, force: true });
  }
  return problems;
}

if (require.main === module) {
  const check = process.argv.includes('--check');
  const problems = runApiReport(!check);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exitCode = 1;
  else console.log(check ? 'The public API matches etc/api/*.api.md' : 'Wrote etc/api/*.api.md');
}

/**
 * Renders the client's types from an OpenAPI document. Run as a script
 * (`node dist/scripts/client-types.js < document.json`) it reads the document
 * on stdin and writes the types to stdout; test/process/client.process-spec.ts runs it so,
 * in a process of its own, since openapi-typescript is an ES module that
 * jest's module loader cannot require.
 */
import openapiTS, { astToString, OpenAPI3 } from 'openapi-typescript';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { format, resolveConfig } from 'prettier';

/** The repository root, whether this file runs compiled (dist/scripts) or through ts-node (scripts). */
const ROOT = __dirname.includes(`${sep}dist${sep}`) ? join(__dirname, '..', '..') : join(__dirname, '..');

/** The committed types of the client, generated from the service's OpenAPI document. */
export const CLIENT_TYPES_FILE = join(ROOT, 'src', 'client', 'generated', 'openapi.ts');

const HEADER = `/**
 * Types of the REST API, generated from the service's OpenAPI document
 * (\`/docs-json\`) by openapi-typescript. Do not edit: run
 * \`npm run client:generate\` after changing a route or DTO
 * (test/process/client.process-spec.ts fails while this file and the document differ).
 */
`;

/**
 * The client's types for an OpenAPI document: openapi-typescript's output
 * under a header, formatted with the repository's Prettier settings so the
 * file passes lint as it is.
 *
 * @param document the document served at `/docs-json`.
 */
export async function renderClientTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, {
    alphabetize: false,
    exportType: false,
    // A field with a default (onFailure, limit) stays optional: it may be left out of a request.
    defaultNonNullable: false,
  });
  const options = (await resolveConfig(CLIENT_TYPES_FILE)) ?? {};
  return format(HEADER + '\n' + astToString(ast), { ...options, filepath: CLIENT_TYPES_FILE });
}

if (require.main === module) {
  renderClientTypes(JSON.parse(readFileSync(0, 'utf8')))
    .then((types) => process.stdout.write(types))
    .catch((error: Error) => {
      console.error(error.message);
      process.exitCode = 1;
    });
}

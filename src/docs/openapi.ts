import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { OPEN_PATHS } from '../http/api-key';

/** Where the UI is served; the JSON document is at `${DOCS_PATH}-json`. */
export const DOCS_PATH = 'docs';

const UNAUTHORIZED = {
  description: 'Only when the API_KEY setting is present: the key is missing or wrong',
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/ErrorResponseDto' },
      example: { statusCode: 401, message: 'API key required: send Authorization: Bearer <key> or x-api-key: <key>', error: 'Unauthorized' },
    },
  },
};

/**
 * Builds the OpenAPI document from the controllers and DTOs of `app`, adding
 * the API key security schemes and a 401 response to every operation that
 * needs the key (all but /health and /health/ready).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Ordered action queue')
    .setDescription(
      'Actions run in FIFO order per lockId and in parallel across lockIds, at least once, with leases and fencing. ' +
        '64-bit ids are decimal strings. Errors use `{ statusCode, message, error }`; `message` names the offending field. ' +
        'When API_KEY is set, every route but /health and /health/ready needs `Authorization: Bearer <key>` or `x-api-key: <key>`.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The API_KEY setting' }, 'bearer')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API_KEY setting' }, 'x-api-key')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  for (const [path, item] of Object.entries(document.paths)) {
    if (OPEN_PATHS.includes(path)) continue;
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      op.security = [{ bearer: [] }, { 'x-api-key': [] }];
      op.responses['401'] = UNAUTHORIZED;
    }
  }
  return document;
}

/**
 * Serves the Swagger UI at `/docs` and the document at `/docs-json`. Behind
 * the API key like every route but the health checks.
 */
export function setupOpenApi(app: INestApplication): void {
  // The UI's assets are linked relative to /docs; /docs/ would resolve them under /docs/docs/.
  app.use(`/${DOCS_PATH}/`, (req: { originalUrl: string }, res: { redirect(status: number, url: string): void }, next: () => void) => {
    if (req.originalUrl === `/${DOCS_PATH}/`) res.redirect(301, `/${DOCS_PATH}`);
    else next();
  });
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), { jsonDocumentUrl: `${DOCS_PATH}-json`, raw: ['json'] });
}

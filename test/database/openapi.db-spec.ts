import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { withTestApp } from '../support';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every `METHOD /path` the Express router of `app` serves, in OpenAPI path syntax. */
function routesOf(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } };
  const routes: string[] = [];
  for (const layer of express.router.stack) {
    if (!layer.route) continue;
    const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
    for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${path}`);
  }
  return routes;
}

/** The routes of the public contract (docs/rest-api.md), plus /health/ready. */
const CONTRACT_ROUTES = [
  'POST /actions',
  'POST /actions/batch',
  'GET /actions/{id}',
  'GET /actions',
  'POST /actions/{id}/cancel',
  'POST /actions/{id}/retry',
  'GET /groups/{lockId}',
  'GET /stats',
  'GET /health',
  'GET /health/ready',
  'GET /metrics',
];

describe('OpenAPI document', () => {
  const t = withTestApp('openapi', { env: { WORKER_ENABLED: 'false' } });
  let app: INestApplication;
  let url: string;
  let doc: {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; requestBody?: unknown }>>;
    components: { schemas: Record<string, { properties?: Record<string, { example?: unknown }> }> };
  };

  beforeAll(async () => {
    ({ app, url } = t);
    doc = (await request(url).get('/docs-json').expect(200)).body;
  });

  const documented = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));

  it('documents every route of the app and every route of the contract', () => {
    // Left out: the Swagger UI itself and Nest's catch-all 404 route.
    const served = routesOf(app).filter((r) => !/^GET \/docs/.test(r) && !r.includes('{*'));
    expect(served.length).toBeGreaterThanOrEqual(CONTRACT_ROUTES.length);
    expect(documented().sort()).toEqual(expect.arrayContaining([...served, ...CONTRACT_ROUTES].sort()));
    expect(served.sort()).toEqual(expect.arrayContaining(CONTRACT_ROUTES));
  });

  it('documents the error responses of the contract', () => {
    const codes = (method: string, path: string) => Object.keys(doc.paths[path][method].responses).sort();
    expect(codes('post', '/actions')).toEqual(expect.arrayContaining(['200', '201', '400', '401', '409', '413']));
    expect(codes('post', '/actions/batch')).toEqual(expect.arrayContaining(['201', '400', '401', '413']));
    expect(codes('get', '/actions/{id}')).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    expect(codes('post', '/actions/{id}/cancel')).toEqual(expect.arrayContaining(['200', '404', '409']));
    expect(codes('post', '/actions/{id}/retry')).toEqual(expect.arrayContaining(['200', '404', '409']));
    expect(codes('get', '/health')).toEqual(expect.arrayContaining(['200', '503']));
    expect(codes('get', '/health')).not.toContain('401');
    expect(codes('get', '/metrics')).toContain('401');
  });

  it('describes request and response bodies from the DTOs, with examples', () => {
    const create = doc.components.schemas.CreateActionDto;
    expect(Object.keys(create.properties ?? {}).sort()).toEqual(
      ['groupKey', 'idempotencyKey', 'lockId', 'maxAttempts', 'onFailure', 'payload', 'runAt', 'tenant', 'type'].sort(),
    );
    expect(create.properties?.type.example).toBe('instance.create');
    const action = doc.components.schemas.ActionResponseDto;
    expect(Object.keys(action.properties ?? {})).toEqual(
      expect.arrayContaining([
        'id',
        'lockId',
        'groupKey',
        'type',
        'payload',
        'status',
        'attempts',
        'maxAttempts',
        'onFailure',
        'runAt',
        'createdAt',
        'result',
        'lastError',
      ]),
    );
    expect(doc.components.schemas.ErrorResponseDto).toBeDefined();
    expect(doc.paths['/actions'].post.requestBody).toBeDefined();
    // String group keys: a group read by its key, and the key on every group shape.
    expect(doc.paths['/groups/by-key/{groupKey}'].get).toBeDefined();
    for (const name of ['GroupResponseDto', 'BlockedGroupDto', 'DeepestGroupDto'])
      expect(Object.keys(doc.components.schemas[name].properties ?? {})).toContain('groupKey');
  });

  it('serves the UI at /docs', async () => {
    const res = await request(url).get('/docs').redirects(1).expect(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('redirects /docs/ to /docs, where the UI assets resolve', async () => {
    const res = await request(url).get('/docs/').expect(301);
    expect(res.headers.location).toBe('/docs');
    const page = await request(url).get('/docs').expect(200);
    const css = /href="([^"]*swagger-ui\.css)"/.exec(page.text)?.[1];
    expect(css).toBeDefined();
    await request(url)
      .get(new URL(css!, `${url}/docs`).pathname)
      .expect(200);
  });
});

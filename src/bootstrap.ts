import { BadRequestException, INestApplication, ValidationPipe } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule, AppModuleOptions } from './app.module';
import { loadSettings } from './config/settings';
import { setupOpenApi } from './docs/openapi';
import { DatabaseUnavailableFilter } from './http/database-unavailable.filter';
import { applyBodyParser, applyHttpSecurity } from './security/http-security';

/**
 * Builds the Nest application with the HTTP edge configured: validation
 * (unknown fields rejected, every error names its field) and the body size
 * limit. Does not listen; call `app.listen(port)`.
 *
 * @param options database URL and optional settings (default from process.env).
 * @throws Error naming the setting when a setting is invalid.
 */
export async function createApp(options: AppModuleOptions): Promise<INestApplication> {
  const settings = options.settings ?? loadSettings(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ ...options, settings }), {
    bodyParser: false,
    // Start-up logs wait for pino (useLogger below); 'silent' stays silent even before.
    bufferLogs: settings.LOG_LEVEL !== 'silent',
    logger: settings.LOG_LEVEL === 'silent' ? false : undefined,
  });
  // Nest's Logger (worker, reaper, start-up) writes through nestjs-pino: one JSON line each.
  app.useLogger(app.get(Logger));
  // Order matters: headers, CORS, API key, then the body parser (413 beyond BODY_LIMIT_BYTES).
  applyHttpSecurity(app, settings);
  applyBodyParser(app, settings);
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      stopAtFirstError: false,
      exceptionFactory: (errors) => new BadRequestException(flattenValidationErrors(errors)),
    }),
  );
  app.useGlobalFilters(new DatabaseUnavailableFilter(app.get(HttpAdapterHost).httpAdapter));
  if (settings.API_ENABLED) setupOpenApi(app);
  // No app.enableShutdownHooks(): it re-raises the signal after closing, so the
  // process would end "killed by SIGTERM". main.ts closes the app itself and exits 0.
  return app;
}

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

/** Turns class-validator errors into messages that name the full field path, e.g. `actions.3.lockId must be ...`. */
export function flattenValidationErrors(errors: ValidationErrorLike[], parent = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = parent ? `${parent}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) {
      out.push(message.startsWith(`${e.property} `) ? `${path}${message.slice(e.property.length)}` : `${path}: ${message}`);
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

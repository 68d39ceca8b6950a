import { DynamicModule, Inject, INestApplication, Injectable, Module, OnModuleInit, Type } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { NestContainer } from '@nestjs/core/injector/container';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** What {@link ActionQueueDocs} serves: where, and the modules whose routes the document describes. */
interface DocsTarget {
  path: string;
  modules: Type<unknown>[];
}

const DOCS_TARGET = Symbol('actions:docs-target');

/**
 * Serves the OpenAPI page of the queue's routes (Swagger UI at `path`, the
 * JSON document at `${path}-json`) inside an app that embeds
 * ActionQueueModule. SwaggerModule wants the application object, which a
 * module never holds: the parts it uses (the module container, the
 * application config, the HTTP adapter and its static files) are handed to it
 * from Nest's own providers. Runs at module init, before Nest registers its
 * 404 handler, so the page's routes are reached. Describes only the queue's
 * routes (`modules`), not the app's.
 */
@Injectable()
class ActionQueueDocs implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
    @Inject(DOCS_TARGET) private readonly target: DocsTarget,
  ) {}

  onModuleInit(): void {
    const httpAdapter = this.adapterHost.httpAdapter;
    // ModuleRef keeps the container in a protected field; it is the one the app was built with.
    const container = (this.moduleRef as unknown as { container: NestContainer }).container;
    const app = {
      container,
      config: container.applicationConfig,
      getHttpAdapter: () => httpAdapter,
      useStaticAssets: (path: string, options: object) =>
        (httpAdapter as unknown as { useStaticAssets(p: string, o: object): void }).useStaticAssets(path, options),
    } as unknown as INestApplication;
    const config = new DocumentBuilder()
      .setTitle('Ordered action queue')
      .setDescription('Actions run in FIFO order per lockId and in parallel across lockIds, at least once. 64-bit ids are decimal strings.')
      .setVersion('1')
      .build();
    SwaggerModule.setup(this.target.path, app, () => SwaggerModule.createDocument(app, config, { include: this.target.modules }), {
      jsonDocumentUrl: `${this.target.path}-json`,
      raw: ['json'],
    });
  }
}

/** The OpenAPI page of the queue's routes inside an app (see ActionQueueDocs). */
@Module({})
export class ActionQueueDocsModule {
  /**
   * @param path where the page is served, e.g. `/queue/docs` (the document at `/queue/docs-json`).
   * @param modules the route modules the document describes.
   */
  static at(path: string, modules: Type<unknown>[]): DynamicModule {
    return { module: ActionQueueDocsModule, providers: [{ provide: DOCS_TARGET, useValue: { path, modules } }, ActionQueueDocs] };
  }
}

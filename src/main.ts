import 'reflect-metadata';
import { DemoHandlersModule } from './demo/demo-handlers.module';
import { bootstrapActionQueueService } from './index';

/**
 * This repository's service (`npm start`, the Docker image): the public
 * service starter with the demo handlers, unless DEMO_HANDLERS=false.
 */
void bootstrapActionQueueService({ imports: (settings) => (settings.DEMO_HANDLERS ? [DemoHandlersModule] : []) });

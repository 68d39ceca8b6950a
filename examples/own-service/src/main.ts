import { bootstrapActionQueueService } from 'ordered-action-queue';
import { GreetingsModule } from './greetings.module';

// The whole service: settings from the environment (DATABASE_URL, PORT, API_KEY, ...), every route,
// health, metrics, OpenAPI, JSON logs and a graceful drain on SIGTERM.
void bootstrapActionQueueService({ imports: [GreetingsModule] });

/**
 * DI token of the queue's {@link QueuePlacement} (queue-schema.ts): its
 * schema as decided once at start-up (queue-schema-choice.ts) and the pooler
 * in front. Read this, never the DATABASE_SCHEMA setting, which may be unset.
 */
export const QUEUE_PLACEMENT = Symbol('actions:queue-placement');

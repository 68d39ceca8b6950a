/** DI token of the TypeORM DataSource the queue's statements run on (its own, or the app's). */
export const QUEUE_DATA_SOURCE = Symbol('actions:data-source');

/** DI token of this instance's worker id (lease owner in the database). */
export const WORKER_ID = Symbol('actions:worker-id');

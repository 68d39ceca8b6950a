/**
 * Types of the REST API, generated from the service's OpenAPI document
 * (`/docs-json`) by openapi-typescript. Do not edit: run
 * `npm run client:generate` after changing a route or DTO
 * (test/process/client.process-spec.ts fails while this file and the document differ).
 */

export interface paths {
  '/actions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A page of actions in id order */
    get: operations['ActionsController_list'];
    put?: never;
    /** Enqueue one action */
    post: operations['ActionsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actions/batch': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enqueue 1..1000 actions atomically (all or nothing) */
    post: operations['ActionsController_createBatch'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One action with its trace (`content=false`: without its content) */
    get: operations['ActionsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actions/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel an action
     * @description Pending or failed: cancelled at once. Running: cancellation is requested (`cancelRequestedAt`); the holder is notified and aborts the handler within about a second (its heartbeat is the fallback), and the action ends `cancelled` once the handler has stopped or its lease has expired; only then may its group move on. An action whose payload, result and error are over MAX_RESPONSE_BYTES is answered without them (`contentOmitted`).
     */
    post: operations['ActionsController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actions/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retry a failed action: in place under `block`, as a new action at the group tail under `skip`
     * @description The answer is the action (under `skip`, its copy), without its payload, result and error when these are over MAX_RESPONSE_BYTES (`contentOmitted`). A `skip` action stored past the payload limit cannot be copied: 413 naming the limit.
     */
    post: operations['ActionsController_retry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/blocked': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Blocked groups (head failed under `block`) with the failing head and its error, in lockId order */
    get: operations['GroupsController_blocked'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/deepest': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The groups with the most actions waiting or running, deepest first */
    get: operations['GroupsController_deepest'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/by-key/{groupKey}/state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The state the handlers of the group a string key names stored (ctx.groupState), as GET /groups/:lockId/state */
    get: operations['GroupsController_stateByKey'];
    put?: never;
    post?: never;
    /** Deletes the stored state of the group a string key names (an operator's reset) */
    delete: operations['GroupsController_deleteStateByKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/by-key/{groupKey}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The group a string group key names: its head, and whether it is blocked (as GET /groups/:lockId) */
    get: operations['GroupsController_byKey'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{lockId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A group's head, and whether it is blocked */
    get: operations['GroupsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{lockId}/timeline': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A group's most recent actions in id order, each with every attempt (retries, lease expiries, releases) and the running one */
    get: operations['GroupsController_timeline'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{lockId}/state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The state the handlers of a group stored (ctx.groupState): its JSON value, its version, when it last changed */
    get: operations['GroupsController_handlerStateOf'];
    put?: never;
    post?: never;
    /** Deletes a group's stored state (an operator's reset: the next action that sets one starts at version 1) */
    delete: operations['GroupsController_deleteHandlerState'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/stats': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Counts by status (exact, or labelled estimates on a large table), due versus scheduled, oldest due age, blocked groups */
    get: operations['StatsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/stats/activity': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Actions ended per second and enqueue-to-start latency, in 10-second buckets, over the last minutes */
    get: operations['StatsController_activity'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/group-depth-limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every maximum group depth: the global one (type null), then per type */
    get: operations['GroupDepthLimitsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/group-depth-limits/global': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Set the global maximum group depth
     * @description An enqueue (REST or SQL) into a group already holding maxDepth unfinished actions is refused: 429, SQLSTATE 53400. A type limit wins over this one.
     */
    put: operations['GroupDepthLimitsController_setGlobal'];
    post?: never;
    /** Remove the global maximum group depth */
    delete: operations['GroupDepthLimitsController_removeGlobal'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/group-depth-limits/types/{type}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set one action type's maximum group depth (applies to enqueues of that type) */
    put: operations['GroupDepthLimitsController_setForType'];
    post?: never;
    /** Remove one action type's maximum group depth */
    delete: operations['GroupDepthLimitsController_removeForType'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/schedules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every recurring action by name, with its next run */
    get: operations['SchedulesController_list'];
    put?: never;
    /**
     * Create a recurring action
     * @description Its first tick is the first after now. Each tick enqueues one action, exactly once across every instance; see catchUp for downtime.
     */
    post: operations['SchedulesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/schedules/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One recurring action */
    get: operations['SchedulesController_get'];
    put?: never;
    post?: never;
    /** Delete a recurring action (its enqueued actions stay) */
    delete: operations['SchedulesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/bulk-operations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The audit of bulk operations, newest first (100 per page) */
    get: operations['BulkOperationsController_list'];
    put?: never;
    /**
     * Retry or cancel every action matching a filter (dryRun: count only)
     * @description Applied in chunks of 500 actions in id order, one transaction each, with the statements of POST /actions/:id/retry and /cancel: a retried group keeps its order. Answered when done, with the audit row (matched, applied).
     */
    post: operations['BulkOperationsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/pauses': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Active pauses, in id order */
    get: operations['PausesController_list'];
    put?: never;
    /** Pause the queue, an action type or a group: enqueue goes on, no instance claims what is paused, running actions finish */
    post: operations['PausesController_pause'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/pauses/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Resume: end a pause; every instance claims what it held back at once */
    delete: operations['PausesController_resume'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/queue/drain': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The drain: whether the queue is paused, how many actions still run, and whether it is drained */
    get: operations['DrainController_state'];
    put?: never;
    /** Start a drain: pause the whole queue (running actions finish); poll GET until `drained` */
    post: operations['DrainController_start'];
    /** End the drain: resume the queue (GET /queue/drain then shows it running) */
    delete: operations['DrainController_stop'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rate-limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Rate limits in force: by action type (override or handler default), and the first page of those by group */
    get: operations['RateLimitsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rate-limits/groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Rate limits by group, in lockId order */
    get: operations['RateLimitsController_listGroups'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rate-limits/groups/by-key/{groupKey}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set a string-keyed group's rate limit (a key not used yet can be limited before its first action) */
    put: operations['RateLimitsController_setGroupByKey'];
    post?: never;
    /** Remove a string-keyed group's rate limit */
    delete: operations['RateLimitsController_removeGroupByKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rate-limits/groups/{lockId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set a group's rate limit: its starts at least 1/perSecond s apart (after a burst), on every instance */
    put: operations['RateLimitsController_setGroup'];
    post?: never;
    /** Remove a group's rate limit: a head it held back may start at once */
    delete: operations['RateLimitsController_removeGroup'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rate-limits/{type}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set a type's rate limit (overrides the handler's default), shared by every instance */
    put: operations['RateLimitsController_set'];
    post?: never;
    /** Clear a type's override: the handler's default (if any) is in force again (see GET /rate-limits) */
    delete: operations['RateLimitsController_clear'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/tenants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tenants with stored settings, in name order (a tenant without any has weight 1, no cap, no rate limit) */
    get: operations['TenantsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/tenants/{tenant}/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A tenant's settings: the stored ones, or the defaults (stored: false) */
    get: operations['TenantsController_get'];
    /** Store a tenant's settings whole (absent fields take their defaults); every instance's next claim follows them */
    put: operations['TenantsController_put'];
    post?: never;
    /** Delete a tenant's settings: back to weight 1, no cap, no rate limit */
    delete: operations['TenantsController_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: database ping, worker loop, stuck slots */
    get: operations['HealthController_live'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: database ping, database writable, migrations applied, worker capacity */
    get: operations['HealthController_ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics of this instance (and queue-wide gauges) */
    get: operations['MetricsController_scrape'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    ErrorResponseDto: {
      /** @example 400 */
      statusCode: number;
      /**
       * @example [
       *       "maxAttempts must not be greater than 100"
       *     ]
       */
      message: string | string[];
      /** @example Bad Request */
      error?: string;
    };
    CreateActionDto: {
      /**
       * @description Handler name; a handler must be registered for it
       * @example instance.create
       */
      type: string;
      /**
       * @description Group key: decimal string (signed 64-bit) or safe integer; null = no group. The lowest 2^48 values (up to -9223090561878065153) are reserved for string group keys (see groupKey). Give lockId or groupKey, not both.
       * @example 26
       */
      lockId?: (string | number) | null;
      /**
       * @description String group key: 1..255 bytes of UTF-8, no NUL character, compared byte for byte (case-sensitive, no Unicode normalisation). The database interns each distinct key under a lock id of its own, so two different keys never share a group. Give groupKey or lockId, not both; null = no group.
       * @example tenant:42
       */
      groupKey?: string | null;
      /**
       * @description JSON object handed to the handler; default {}; at most MAX_PAYLOAD_BYTES serialized
       * @example {
       *       "instanceId": 26
       *     }
       */
      payload?: {
        [key: string]: unknown;
      };
      /**
       * Format: date-time
       * @description Not claimable before this instant; default now. ISO 8601 date and time with `Z` or a UTC offset (`2030-01-01T09:00:00Z`, `2030-01-01T09:00:00+09:00`), between 1970 and 9999. A value without an offset (`2030-01-01T09:00:00`) or a date alone (`2030-01-01`) is refused with 400: its instant would depend on the server time zone.
       * @example 2030-01-01T09:00:00Z
       */
      runAt?: string;
      /**
       * @description Default DEFAULT_MAX_ATTEMPTS
       * @example 5
       */
      maxAttempts?: number;
      /**
       * @default block
       * @enum {string}
       */
      onFailure?: 'block' | 'skip';
      /**
       * @description A repeat returns the existing action with 200 (409 if it names another type or lockId). The key is remembered for at least IDEMPOTENCY_WINDOW_DAYS after the first enqueue, however short RETENTION_DAYS is; after that it may be reused once retention has purged the action.
       * @example create-26
       */
      idempotencyKey?: string;
      /**
       * @description The tenant the action belongs to (docs/tenants.md): 1..128 characters of letters, digits, ".", "_", ":", "@", "-", starting with a letter or a digit. Absent or null = the tenant "default". A group holds the work of one tenant at a time: an action for a group that holds another tenant's pending or running work is refused with 409 naming both tenants.
       * @example acme
       */
      tenant?: string | null;
    };
    ActionResponseDto: {
      /**
       * @description 64-bit id as a decimal string
       * @example 17
       */
      id: string;
      /**
       * @description Group key (decimal string), or null: belongs to no group. For a string-keyed action, the lock id its groupKey was interned under
       * @example 26
       */
      lockId: string | null;
      /**
       * @description The string group key it was enqueued with, or null (an integer group, or none)
       * @example null
       */
      groupKey: string | null;
      /**
       * @description Handler name
       * @example instance.create
       */
      type: string;
      /**
       * @example {
       *       "instanceId": 26
       *     }
       */
      payload: {
        [key: string]: unknown;
      };
      /**
       * @example pending
       * @enum {string}
       */
      status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /**
       * @description Executions started so far
       * @example 1
       */
      attempts: number;
      /**
       * @description Attempts allowed (a handler option may cap it; the number shown is the number enforced). Releases do not count; a manual retry grants it afresh
       * @example 5
       */
      maxAttempts: number;
      /**
       * @example block
       * @enum {string}
       */
      onFailure: 'block' | 'skip';
      /**
       * Format: date-time
       * @description Not claimable before
       * @example 2025-01-01T12:00:00.000Z
       */
      runAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @example null
       */
      startedAt: string | null;
      /**
       * Format: date-time
       * @example null
       */
      finishedAt: string | null;
      /**
       * @description What the handler returned (any JSON)
       * @example null
       */
      result: Record<string, never> | null;
      /** @example null */
      lastError: string | null;
      /** @example create-26 */
      idempotencyKey: string | null;
      /**
       * @description The failed `skip` action this one retries
       * @example null
       */
      retryOf: string | null;
      /**
       * @description Attempts counted toward maxAttempts (releases and lost leases not proven to be its fault are not)
       * @example 0
       */
      chargedAttempts: number;
      /**
       * Format: date-time
       * @description When cancellation of the running action was requested; it ends `cancelled` once its handler has stopped or its lease has expired
       * @example null
       */
      cancelRequestedAt: string | null;
      /**
       * @description A suspect: lost with its instance twice in a row (once alone or with one other) or three times; runs one per instance, and a further loss is charged (poison detection)
       * @example false
       */
      quarantined: boolean;
      /**
       * @description The tenant it belongs to: `default` when enqueued without one (docs/tenants.md)
       * @example default
       */
      tenant: string;
    };
    CreateActionsBatchDto: {
      /** @description Within a group, input order is processing order */
      actions: components['schemas']['CreateActionDto'][];
    };
    ActionsBatchResponseDto: {
      /** @description In input order */
      actions: components['schemas']['ActionResponseDto'][];
    };
    ContentBytesDto: {
      /**
       * @description Bytes of the payload as JSON text
       * @example 20971532
       */
      payload: number;
      /**
       * @description Bytes of the result as JSON text (0: none)
       * @example 0
       */
      result: number;
      /**
       * @description Bytes of the last error (0: none)
       * @example 0
       */
      lastError: number;
      /**
       * @description Bytes of the trace's worker ids, errors and stacks; only on `GET /actions/:id`
       * @example 0
       */
      trace?: number;
    };
    BoundedActionResponseDto: {
      /**
       * @description 64-bit id as a decimal string
       * @example 17
       */
      id: string;
      /**
       * @description Group key (decimal string), or null: belongs to no group. For a string-keyed action, the lock id its groupKey was interned under
       * @example 26
       */
      lockId: string | null;
      /**
       * @description The string group key it was enqueued with, or null (an integer group, or none)
       * @example null
       */
      groupKey: string | null;
      /**
       * @description Handler name
       * @example instance.create
       */
      type: string;
      /**
       * @example {
       *       "instanceId": 26
       *     }
       */
      payload: {
        [key: string]: unknown;
      };
      /**
       * @example pending
       * @enum {string}
       */
      status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /**
       * @description Executions started so far
       * @example 1
       */
      attempts: number;
      /**
       * @description Attempts allowed (a handler option may cap it; the number shown is the number enforced). Releases do not count; a manual retry grants it afresh
       * @example 5
       */
      maxAttempts: number;
      /**
       * @example block
       * @enum {string}
       */
      onFailure: 'block' | 'skip';
      /**
       * Format: date-time
       * @description Not claimable before
       * @example 2025-01-01T12:00:00.000Z
       */
      runAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @example null
       */
      startedAt: string | null;
      /**
       * Format: date-time
       * @example null
       */
      finishedAt: string | null;
      /**
       * @description What the handler returned (any JSON)
       * @example null
       */
      result: Record<string, never> | null;
      /** @example null */
      lastError: string | null;
      /** @example create-26 */
      idempotencyKey: string | null;
      /**
       * @description The failed `skip` action this one retries
       * @example null
       */
      retryOf: string | null;
      /**
       * @description Attempts counted toward maxAttempts (releases and lost leases not proven to be its fault are not)
       * @example 0
       */
      chargedAttempts: number;
      /**
       * Format: date-time
       * @description When cancellation of the running action was requested; it ends `cancelled` once its handler has stopped or its lease has expired
       * @example null
       */
      cancelRequestedAt: string | null;
      /**
       * @description A suspect: lost with its instance twice in a row (once alone or with one other) or three times; runs one per instance, and a further loss is charged (poison detection)
       * @example false
       */
      quarantined: boolean;
      /**
       * @description The tenant it belongs to: `default` when enqueued without one (docs/tenants.md)
       * @example default
       */
      tenant: string;
      /**
       * @description True when its payload, result and lastError were left out (`payload` is `{}`, `result` and `lastError` are null): they cannot fit MAX_RESPONSE_BYTES beside the rest of the answer, or `content=false` was asked. Read them with `GET /actions/:id`, or by SQL when over MAX_RESPONSE_BYTES
       * @example false
       */
      contentOmitted: boolean;
      /** @description The sizes of what was left out; only when `contentOmitted` */
      contentBytes?: components['schemas']['ContentBytesDto'];
    };
    ActionsPageResponseDto: {
      /** @description An action whose content can never fit MAX_RESPONSE_BYTES is listed without it (`contentOmitted`) */
      items: components['schemas']['BoundedActionResponseDto'][];
      /**
       * @description Pass as `after` for the next page; null on the last page
       * @example 67
       */
      nextCursor: string | null;
    };
    AttemptResponseDto: {
      /** @example 1 */
      attempt: number;
      /** @example host-1234-ab12 */
      workerId: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:01.000Z
       */
      startedAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:02.000Z
       */
      finishedAt: string;
      /**
       * @example done
       * @enum {string}
       */
      outcome: 'done' | 'error' | 'timeout' | 'cancelled' | 'lease_expired' | 'released' | 'backed_off';
      /**
       * @description Readable message; long ones keep their first 3 000 and last 1 000 characters
       * @example null
       */
      error: string | null;
      /**
       * @description The thrown Error's stack (first 8 000 characters)
       * @example null
       */
      errorStack: string | null;
      /**
       * @description The id of the first action of the ordered chunk this attempt ran in (a chunk handler), or null: run alone
       * @example null
       */
      chunkOf: string | null;
    };
    ActionWithTraceResponseDto: {
      /**
       * @description 64-bit id as a decimal string
       * @example 17
       */
      id: string;
      /**
       * @description Group key (decimal string), or null: belongs to no group. For a string-keyed action, the lock id its groupKey was interned under
       * @example 26
       */
      lockId: string | null;
      /**
       * @description The string group key it was enqueued with, or null (an integer group, or none)
       * @example null
       */
      groupKey: string | null;
      /**
       * @description Handler name
       * @example instance.create
       */
      type: string;
      /**
       * @example {
       *       "instanceId": 26
       *     }
       */
      payload: {
        [key: string]: unknown;
      };
      /**
       * @example pending
       * @enum {string}
       */
      status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /**
       * @description Executions started so far
       * @example 1
       */
      attempts: number;
      /**
       * @description Attempts allowed (a handler option may cap it; the number shown is the number enforced). Releases do not count; a manual retry grants it afresh
       * @example 5
       */
      maxAttempts: number;
      /**
       * @example block
       * @enum {string}
       */
      onFailure: 'block' | 'skip';
      /**
       * Format: date-time
       * @description Not claimable before
       * @example 2025-01-01T12:00:00.000Z
       */
      runAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @example null
       */
      startedAt: string | null;
      /**
       * Format: date-time
       * @example null
       */
      finishedAt: string | null;
      /**
       * @description What the handler returned (any JSON)
       * @example null
       */
      result: Record<string, never> | null;
      /** @example null */
      lastError: string | null;
      /** @example create-26 */
      idempotencyKey: string | null;
      /**
       * @description The failed `skip` action this one retries
       * @example null
       */
      retryOf: string | null;
      /**
       * @description Attempts counted toward maxAttempts (releases and lost leases not proven to be its fault are not)
       * @example 0
       */
      chargedAttempts: number;
      /**
       * Format: date-time
       * @description When cancellation of the running action was requested; it ends `cancelled` once its handler has stopped or its lease has expired
       * @example null
       */
      cancelRequestedAt: string | null;
      /**
       * @description A suspect: lost with its instance twice in a row (once alone or with one other) or three times; runs one per instance, and a further loss is charged (poison detection)
       * @example false
       */
      quarantined: boolean;
      /**
       * @description The tenant it belongs to: `default` when enqueued without one (docs/tenants.md)
       * @example default
       */
      tenant: string;
      /**
       * @description True when its payload, result and lastError were left out (`payload` is `{}`, `result` and `lastError` are null): they cannot fit MAX_RESPONSE_BYTES beside the rest of the answer, or `content=false` was asked. Read them with `GET /actions/:id`, or by SQL when over MAX_RESPONSE_BYTES
       * @example false
       */
      contentOmitted: boolean;
      /** @description The sizes of what was left out; only when `contentOmitted` */
      contentBytes?: components['schemas']['ContentBytesDto'];
      /** @description Under `content=false`, each attempt's `error` and `errorStack` are null */
      trace: components['schemas']['AttemptResponseDto'][];
    };
    ActionCommandResponseDto: {
      /**
       * @description 64-bit id as a decimal string
       * @example 17
       */
      id: string;
      /**
       * @description Group key (decimal string), or null: belongs to no group. For a string-keyed action, the lock id its groupKey was interned under
       * @example 26
       */
      lockId: string | null;
      /**
       * @description The string group key it was enqueued with, or null (an integer group, or none)
       * @example null
       */
      groupKey: string | null;
      /**
       * @description Handler name
       * @example instance.create
       */
      type: string;
      /**
       * @example {
       *       "instanceId": 26
       *     }
       */
      payload: {
        [key: string]: unknown;
      };
      /**
       * @example pending
       * @enum {string}
       */
      status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /**
       * @description Executions started so far
       * @example 1
       */
      attempts: number;
      /**
       * @description Attempts allowed (a handler option may cap it; the number shown is the number enforced). Releases do not count; a manual retry grants it afresh
       * @example 5
       */
      maxAttempts: number;
      /**
       * @example block
       * @enum {string}
       */
      onFailure: 'block' | 'skip';
      /**
       * Format: date-time
       * @description Not claimable before
       * @example 2025-01-01T12:00:00.000Z
       */
      runAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @example null
       */
      startedAt: string | null;
      /**
       * Format: date-time
       * @example null
       */
      finishedAt: string | null;
      /**
       * @description What the handler returned (any JSON)
       * @example null
       */
      result: Record<string, never> | null;
      /** @example null */
      lastError: string | null;
      /** @example create-26 */
      idempotencyKey: string | null;
      /**
       * @description The failed `skip` action this one retries
       * @example null
       */
      retryOf: string | null;
      /**
       * @description Attempts counted toward maxAttempts (releases and lost leases not proven to be its fault are not)
       * @example 0
       */
      chargedAttempts: number;
      /**
       * Format: date-time
       * @description When cancellation of the running action was requested; it ends `cancelled` once its handler has stopped or its lease has expired
       * @example null
       */
      cancelRequestedAt: string | null;
      /**
       * @description A suspect: lost with its instance twice in a row (once alone or with one other) or three times; runs one per instance, and a further loss is charged (poison detection)
       * @example false
       */
      quarantined: boolean;
      /**
       * @description The tenant it belongs to: `default` when enqueued without one (docs/tenants.md)
       * @example default
       */
      tenant: string;
      /**
       * @description True when the action's payload, result and lastError together are over MAX_RESPONSE_BYTES: the command took effect, and they are left out (`payload` is `{}`, `result` and `lastError` are null; read them by SQL)
       * @example false
       */
      contentOmitted: boolean;
    };
    ErrorBytesDto: {
      /**
       * @description Bytes of the last error
       * @example 9000000
       */
      lastError: number;
    };
    BlockedHeadDto: {
      /** @example 41 */
      id: string;
      /** @example instance.delete */
      type: string;
      /** @example 5 */
      attempts: number;
      /** @example 5 */
      maxAttempts: number;
      /**
       * @description The error of its last attempt
       * @example cloud API answered 503
       */
      lastError: string | null;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @description When it failed (blocked since)
       * @example 2025-01-01T12:00:09.000Z
       */
      failedAt: string | null;
      /**
       * @description True when `lastError` was left out (null): it cannot fit MAX_RESPONSE_BYTES beside the rest of the answer; read it with `GET /actions/:id`
       * @example false
       */
      contentOmitted: boolean;
      /** @description The size of what was left out; only when `contentOmitted` */
      contentBytes?: components['schemas']['ErrorBytesDto'];
    };
    BlockedGroupDto: {
      /** @example 26 */
      lockId: string;
      /**
       * @description The string group key (groupKey at enqueue), or null for an integer group
       * @example null
       */
      groupKey: string | null;
      head: components['schemas']['BlockedHeadDto'];
      /**
       * @description Actions of the group waiting behind the failed head
       * @example 3
       */
      waiting: number;
    };
    BlockedGroupsPageDto: {
      /** @description In lockId order */
      items: components['schemas']['BlockedGroupDto'][];
      /**
       * @description Pass as `after` for the next page; null on the last page
       * @example 26
       */
      nextCursor: string | null;
    };
    DeepGroupHeadDto: {
      /** @example 101 */
      id: string;
      /** @example instance.update */
      type: string;
      /**
       * @example running
       * @enum {string}
       */
      status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /** @example 1 */
      attempts: number;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      runAt: string;
      /** @example null */
      lastError: string | null;
      /**
       * @description True when `lastError` was left out (null): it cannot fit MAX_RESPONSE_BYTES beside the rest of the answer; read it with `GET /actions/:id`
       * @example false
       */
      contentOmitted: boolean;
      /** @description The size of what was left out; only when `contentOmitted` */
      contentBytes?: components['schemas']['ErrorBytesDto'];
    };
    DeepestGroupDto: {
      /** @example 26 */
      lockId: string;
      /**
       * @description The string group key (groupKey at enqueue), or null for an integer group
       * @example null
       */
      groupKey: string | null;
      /**
       * @description Actions holding the group: pending, running, or a failed head under `block`
       * @example 1200
       */
      depth: number;
      head: components['schemas']['DeepGroupHeadDto'] | null;
    };
    DeepestGroupsDto: {
      /** @description Deepest first */
      items: components['schemas']['DeepestGroupDto'][];
    };
    GroupHandlerStateResponseDto: {
      /** @example 26 */
      lockId: string;
      /**
       * @description The JSON value the handlers stored with ctx.groupState.set
       * @example {
       *       "balance": 120
       *     }
       */
      state: Record<string, never>;
      /**
       * @description Completed actions that changed it (1 for the first)
       * @example 3
       */
      version: number;
      /**
       * @description When it last changed
       * @example 2026-01-01T00:00:00.000Z
       */
      updatedAt: string;
    };
    GroupPauseDto: {
      /**
       * @description End it with DELETE /pauses/{id}
       * @example 3
       */
      id: string;
      /**
       * @example group
       * @enum {string}
       */
      scope: 'queue' | 'type' | 'group';
      /** @example payments API down */
      reason: string | null;
      /**
       * Format: date-time
       * @description When a timed pause ends; null: until resumed
       * @example null
       */
      until: string | null;
    };
    GroupStoredStateDto: {
      /**
       * @description Completed actions that changed it (1 for the first)
       * @example 3
       */
      version: number;
      /**
       * @description When it last changed
       * @example 2026-01-01T00:00:00.000Z
       */
      updatedAt: string;
    };
    GroupResponseDto: {
      /** @example 26 */
      lockId: string;
      /**
       * @description The string group key (groupKey at enqueue), or null for an integer group
       * @example null
       */
      groupKey: string | null;
      /** @description The head; without its content when that is over MAX_RESPONSE_BYTES (`contentOmitted`) */
      head: components['schemas']['BoundedActionResponseDto'] | null;
      /** @example false */
      running: boolean;
      /** @example 3 */
      pendingCount: number;
      /** @example false */
      blocked: boolean;
      /** @example null */
      blockedReason: string | null;
      /**
       * @description True when an active pause holds the group back (its own, its head's type or the queue's): nothing of it starts until resumed
       * @example false
       */
      paused: boolean;
      /** @description The pause that holds it (its own first, then the type, then the queue), or null */
      pausedBy: components['schemas']['GroupPauseDto'] | null;
      /** @description The state its handlers stored with ctx.groupState (version, last change), or null; the value: GET /groups/{lockId}/state */
      storedState: components['schemas']['GroupStoredStateDto'] | null;
    };
    CurrentAttemptDto: {
      /**
       * @description The attempt number (fencing token)
       * @example 2
       */
      attempt: number;
      /** @example host-1234-ab12 */
      workerId: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:01.000Z
       */
      startedAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:31.000Z
       */
      leaseExpiresAt: string;
    };
    TimelineContentBytesDto: {
      /**
       * @description Bytes of the last error
       * @example 9000000
       */
      lastError: number;
      /**
       * @description Bytes of its trace's worker ids and errors
       * @example 80000
       */
      trace: number;
    };
    TimelineActionDto: {
      /** @example 17 */
      id: string;
      /** @example instance.create */
      type: string;
      /**
       * @example done
       * @enum {string}
       */
      status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /** @example 1 */
      attempts: number;
      /** @example 5 */
      maxAttempts: number;
      /**
       * @example block
       * @enum {string}
       */
      onFailure: 'block' | 'skip';
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      runAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:01.000Z
       */
      startedAt: string | null;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:02.000Z
       */
      finishedAt: string | null;
      /** @example null */
      lastError: string | null;
      /** @description Ended attempts, in attempt order (retries, lease expiries and releases included); empty when `contentOmitted` */
      trace: components['schemas']['AttemptResponseDto'][];
      /** @description The running attempt, while the action runs */
      current: components['schemas']['CurrentAttemptDto'] | null;
      /**
       * @description True when its last error and trace were left out (`lastError` null, `trace` empty): alone they are over MAX_RESPONSE_BYTES; read them by SQL
       * @example false
       */
      contentOmitted: boolean;
      /** @description The sizes of what was left out; only when `contentOmitted` */
      contentBytes?: components['schemas']['TimelineContentBytesDto'];
    };
    GroupTimelineDto: {
      /** @example 26 */
      lockId: string;
      /** @description The group's most recent actions, in id order (the order they run in) */
      actions: components['schemas']['TimelineActionDto'][];
      /**
       * @description Pass as `before` for older actions; null when there are none
       * @example 12
       */
      nextBefore: string | null;
    };
    PendingBreakdownDto: {
      /**
       * @description Pending heads whose runAt has passed, neither paused nor waiting for a token: claimable now
       * @example 2
       */
      due: number;
      /**
       * @description Pending heads whose runAt is in the future (neither paused nor held back by a group rate limit)
       * @example 1
       */
      scheduled: number;
      /**
       * @description Pending heads held back by a pause of the queue, their type or their group, whatever their runAt
       * @example 1
       */
      paused: number;
      /**
       * @description Pending heads, not paused, waiting for a token of their type's or their group's rate limit (due ones beyond what the bucket allows now)
       * @example 0
       */
      waitingForRateLimit: number;
      /**
       * @description Pending actions waiting for an earlier action of their group
       * @example 12
       */
      behindHead: number;
    };
    PausedCountsDto: {
      /**
       * @description The whole queue is paused (or draining): nothing is claimed
       * @example false
       */
      queue: boolean;
      /**
       * @description Action types paused (a handler back-off for its whole type included)
       * @example 0
       */
      types: number;
      /**
       * @description Groups paused
       * @example 1
       */
      groups: number;
    };
    TenantStatsDto: {
      /**
       * @description The tenant (`default` for actions enqueued without one)
       * @example acme
       */
      tenant: string;
      /**
       * @description Its pending actions: due, scheduled, paused and behind their group head alike
       * @example 1200
       */
      backlog: number;
      /**
       * @description Its running actions
       * @example 4
       */
      running: number;
      /**
       * @description Seconds since its oldest due pending head (a group head, or an ungrouped action, with runAt passed) became due: now - max(runAt, createdAt). A head held back by a pause or a rate limit counts. Null when the tenant has no due head.
       * @example 12.5
       */
      oldestWaitingAgeSeconds: number | null;
      /**
       * @description Its weight (action_tenant_settings; 1 when it has no settings)
       * @example 1
       */
      weight: number;
      /**
       * @description The most of its actions running at once; null: no cap
       * @example null
       */
      maxRunning: number | null;
    };
    OtherTenantsStatsDto: {
      /**
       * @description How many tenants with pending or running work are not listed in `top`
       * @example 0
       */
      tenants: number;
      /**
       * @description Their pending actions, summed
       * @example 0
       */
      backlog: number;
      /**
       * @description Their running actions, summed
       * @example 0
       */
      running: number;
      /**
       * @description The largest of their oldest-waiting ages (s); null when none has a due head
       * @example null
       */
      oldestWaitingAgeSeconds: number | null;
    };
    TenantsStatsDto: {
      /** @description Tenants with pending or running work, the largest backlog first (ties: more running, then by name), at most STATS_TENANTS_TOP (default 10) */
      top: components['schemas']['TenantStatsDto'][];
      others: components['schemas']['OtherTenantsStatsDto'];
    };
    StatsResponseDto: {
      /**
       * @description Actions by status. Exact while the actions table is at most 8 MB; beyond, `done` is PostgreSQL's estimate (its live row count minus the other statuses) and `failed` / `cancelled` are exact up to 10 000, then estimated. `estimated` lists the statuses whose count is an estimate.
       * @example {
       *       "pending": 15,
       *       "running": 1,
       *       "done": 40,
       *       "failed": 0,
       *       "cancelled": 2
       *     }
       */
      byStatus: {
        [key: string]: number;
      };
      /**
       * @description Statuses whose count in `byStatus` is an estimate
       * @example []
       */
      estimated: ('pending' | 'running' | 'done' | 'failed' | 'cancelled')[];
      pendingBreakdown: components['schemas']['PendingBreakdownDto'];
      /**
       * @description Seconds the oldest due, claimable action (a pending group head, or an ungrouped pending action, with runAt passed) has waited since it became due: now - max(runAt, createdAt). Scheduled actions (runAt in the future), paused ones, ones whose type has no rate-limit token now, and actions waiting behind their group's head do not count. Null when no action is claimable.
       * @example 1.5
       */
      oldestPendingAgeSeconds: number | null;
      /**
       * @description Groups held by a failed head under the `block` policy
       * @example 0
       */
      blockedGroups: number;
      /** @description What is paused now (POST /pauses, POST /queue/drain, aq_pause_* in SQL) */
      paused: components['schemas']['PausedCountsDto'];
      /** @description Live work per tenant (docs/tenants.md, "Watching tenants"): the tenants with the largest backlog by name, the rest summed */
      tenants: components['schemas']['TenantsStatsDto'];
    };
    ActivityBucketDto: {
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      start: string;
      /**
       * @description Actions that ended done in the bucket
       * @example 80
       */
      done: number;
      /** @example 1 */
      failed: number;
      /** @example 0 */
      cancelled: number;
      /**
       * @description (done + failed + cancelled) / bucketSeconds
       * @example 8.1
       */
      endedPerSecond: number;
      /**
       * @description Mean enqueue-to-start latency (ms): from when the action became due (the later of createdAt and runAt) to its first start, over the ended actions that ran once from their due time
       * @example 12.5
       */
      meanLatencyMs: number | null;
      /** @example 40.2 */
      maxLatencyMs: number | null;
    };
    ActivityDto: {
      /** @example 10 */
      bucketSeconds: number;
      /**
       * Format: date-time
       * @description Endings stamped up to this instant are counted (about 5 s behind now); buckets end before it
       * @example 2025-01-01T12:15:00.000Z
       */
      countedUpTo: string;
      /** @description Oldest first, empty buckets included */
      buckets: components['schemas']['ActivityBucketDto'][];
    };
    GroupDepthLimitResponseDto: {
      /**
       * @description The action type it applies to; null: the global limit
       * @example invoice.send
       */
      type: string | null;
      /** @example 1000 */
      maxDepth: number;
      /**
       * Format: date-time
       * @example 2025-01-01T12:00:00.000Z
       */
      updatedAt: string;
    };
    GroupDepthLimitsResponseDto: {
      /** @description The global limit (type null) first, then by type */
      items: components['schemas']['GroupDepthLimitResponseDto'][];
    };
    SetGroupDepthLimitDto: {
      /**
       * @description Unfinished actions a group may hold; the next enqueue gets 429
       * @example 1000
       */
      maxDepth: number;
    };
    ScheduleContentBytesDto: {
      /**
       * @description Bytes of the payload as JSON text
       * @example 20971532
       */
      payload: number;
      /**
       * @description Bytes of the last error (0: none)
       * @example 0
       */
      lastError: number;
    };
    ListedScheduleResponseDto: {
      /** @example nightly-report */
      name: string;
      /**
       * @description Cron: 5 fields, or 6 with seconds first; it must have a next run (not "0 0 30 2 *")
       * @example 0 30 2 * * *
       */
      cron: string;
      /**
       * @description IANA time zone the expression is read in (required): no implicit server zone, so "local" and bare offsets are refused
       * @example Europe/Paris
       */
      timeZone: string;
      /**
       * @description Action type of each enqueued action; a handler must be registered for it
       * @example report.build
       */
      type: string;
      /**
       * @example {
       *       "scope": "all"
       *     }
       */
      payload?: {
        [key: string]: unknown;
      };
      /**
       * @description Enqueue into this integer group
       * @example 26
       */
      lockId?: string;
      /**
       * @description Enqueue into this string group (not with lockId)
       * @example tenant:42
       */
      groupKey?: string;
      /** @example 5 */
      maxAttempts?: number;
      /**
       * @description After downtime: skip the ticks older than misfireGraceMs (default), or fill the newest catchUpLimit of them
       * @enum {string}
       */
      catchUp?: 'skip' | 'fill';
      /** @example 1 */
      catchUpLimit?: number;
      /**
       * @description A tick at most this late (ms) is always enqueued
       * @example 10000
       */
      misfireGraceMs?: number;
      /**
       * @description code: declared by a handler option; api: created at runtime
       * @enum {string}
       */
      source: 'code' | 'api';
      /**
       * Format: date-time
       * @description The next tick to enqueue
       * @example 2025-01-01T02:30:00.000Z
       */
      nextRunAt: string;
      /**
       * Format: date-time
       * @description The newest tick enqueued
       * @example null
       */
      lastRunAt: string | null;
      /**
       * @description Missed ticks dropped by the catch-up policy
       * @example 0
       */
      skippedTicks: number;
      /** @example null */
      lastError: string | null;
      /** Format: date-time */
      createdAt: string;
      /**
       * @description True when its payload and lastError were left out (`payload` is `{}`, `lastError` null): they cannot fit MAX_RESPONSE_BYTES beside the rest of the list
       * @example false
       */
      contentOmitted: boolean;
      /** @description The sizes of what was left out; only when `contentOmitted` */
      contentBytes?: components['schemas']['ScheduleContentBytesDto'];
    };
    SchedulesResponseDto: {
      items: components['schemas']['ListedScheduleResponseDto'][];
    };
    CreateScheduleDto: {
      /** @example nightly-report */
      name: string;
      /**
       * @description Cron: 5 fields, or 6 with seconds first; it must have a next run (not "0 0 30 2 *")
       * @example 0 30 2 * * *
       */
      cron: string;
      /**
       * @description IANA time zone the expression is read in (required): no implicit server zone, so "local" and bare offsets are refused
       * @example Europe/Paris
       */
      timeZone: string;
      /**
       * @description Action type of each enqueued action; a handler must be registered for it
       * @example report.build
       */
      type: string;
      /**
       * @example {
       *       "scope": "all"
       *     }
       */
      payload?: {
        [key: string]: unknown;
      };
      /**
       * @description Enqueue into this integer group
       * @example 26
       */
      lockId?: string;
      /**
       * @description Enqueue into this string group (not with lockId)
       * @example tenant:42
       */
      groupKey?: string;
      /** @example 5 */
      maxAttempts?: number;
      /**
       * @description After downtime: skip the ticks older than misfireGraceMs (default), or fill the newest catchUpLimit of them
       * @enum {string}
       */
      catchUp?: 'skip' | 'fill';
      /** @example 1 */
      catchUpLimit?: number;
      /**
       * @description A tick at most this late (ms) is always enqueued
       * @example 10000
       */
      misfireGraceMs?: number;
    };
    ScheduleResponseDto: {
      /** @example nightly-report */
      name: string;
      /**
       * @description Cron: 5 fields, or 6 with seconds first; it must have a next run (not "0 0 30 2 *")
       * @example 0 30 2 * * *
       */
      cron: string;
      /**
       * @description IANA time zone the expression is read in (required): no implicit server zone, so "local" and bare offsets are refused
       * @example Europe/Paris
       */
      timeZone: string;
      /**
       * @description Action type of each enqueued action; a handler must be registered for it
       * @example report.build
       */
      type: string;
      /**
       * @example {
       *       "scope": "all"
       *     }
       */
      payload?: {
        [key: string]: unknown;
      };
      /**
       * @description Enqueue into this integer group
       * @example 26
       */
      lockId?: string;
      /**
       * @description Enqueue into this string group (not with lockId)
       * @example tenant:42
       */
      groupKey?: string;
      /** @example 5 */
      maxAttempts?: number;
      /**
       * @description After downtime: skip the ticks older than misfireGraceMs (default), or fill the newest catchUpLimit of them
       * @enum {string}
       */
      catchUp?: 'skip' | 'fill';
      /** @example 1 */
      catchUpLimit?: number;
      /**
       * @description A tick at most this late (ms) is always enqueued
       * @example 10000
       */
      misfireGraceMs?: number;
      /**
       * @description code: declared by a handler option; api: created at runtime
       * @enum {string}
       */
      source: 'code' | 'api';
      /**
       * Format: date-time
       * @description The next tick to enqueue
       * @example 2025-01-01T02:30:00.000Z
       */
      nextRunAt: string;
      /**
       * Format: date-time
       * @description The newest tick enqueued
       * @example null
       */
      lastRunAt: string | null;
      /**
       * @description Missed ticks dropped by the catch-up policy
       * @example 0
       */
      skippedTicks: number;
      /** @example null */
      lastError: string | null;
      /** Format: date-time */
      createdAt: string;
    };
    BulkFilterDto: {
      /** @example invoice.send */
      type?: string;
      /** @example 26 */
      lockId?: string;
      /** @example tenant:42 */
      groupKey?: string;
      /**
       * @description retry takes failed actions only; cancel pending, failed and running
       * @enum {string}
       */
      status?: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
      /**
       * @description A substring of lastError (case-sensitive)
       * @example ECONNREFUSED
       */
      errorContains?: string;
      /**
       * Format: date-time
       * @description Created at or after; ISO 8601 with Z or a UTC offset, as runAt
       */
      createdAfter?: string;
      /**
       * Format: date-time
       * @description Created before; ISO 8601 with Z or a UTC offset, as runAt
       */
      createdBefore?: string;
    };
    CreateBulkOperationDto: {
      /** @enum {string} */
      operation: 'retry' | 'cancel';
      filter: components['schemas']['BulkFilterDto'];
      /**
       * @description Count what would change, change nothing (recorded too); absent: false, null refused
       * @default false
       */
      dryRun?: boolean;
    };
    BulkOperationResponseDto: {
      /** @example 3 */
      id: string;
      /** @enum {string} */
      operation: 'retry' | 'cancel';
      dryRun: boolean;
      filter: {
        [key: string]: unknown;
      };
      /**
       * @description The API key's id (a hash prefix), 'anonymous' without API_KEY, or 'sql'
       * @example api-key:1a2b3c4d5e6f
       */
      actor: string;
      /**
       * @description Actions the filter matched when the operation started
       * @example 120
       */
      matched: number;
      /**
       * @description Actions changed (0 for a dry run)
       * @example 120
       */
      applied: number;
      /** Format: date-time */
      startedAt: string;
      /** Format: date-time */
      finishedAt: string | null;
      error: string | null;
    };
    BulkOperationsResponseDto: {
      /** @description Newest first */
      items: components['schemas']['BulkOperationResponseDto'][];
    };
    CreatePauseDto: {
      /**
       * @description queue: everything; type: one action type; group: one group; tenant: one tenant
       * @example group
       * @enum {string}
       */
      scope: 'queue' | 'type' | 'group' | 'tenant';
      /**
       * @description The action type (scope type only)
       * @example invoice.send
       */
      type?: string;
      /**
       * @description The group's lock id: decimal string (signed 64-bit) or safe integer (scope group; or give groupKey). The lock ids reserved for string group keys (up to -9223090561878065153) are refused: pause by groupKey.
       * @example 26
       */
      lockId?: string | number;
      /**
       * @description The group's string key, 1..255 bytes of UTF-8 (scope group; or give lockId). A key not used yet can be paused before its first action.
       * @example tenant:42
       */
      groupKey?: string;
      /**
       * @description The tenant (scope tenant only; docs/tenants.md): nothing of it starts until resumed
       * @example acme
       */
      tenant?: string;
      /**
       * @description Why, shown in GET /pauses
       * @example payments API down
       */
      reason?: string;
      /**
       * @description Pause for this many ms, then resume by itself; absent: until resumed
       * @example 60000
       */
      forMs?: number;
    };
    PauseResponseDto: {
      /**
       * @description DELETE /pauses/:id resumes it
       * @example 3
       */
      id: string;
      /**
       * @example group
       * @enum {string}
       */
      scope: 'queue' | 'type' | 'group' | 'tenant';
      /**
       * @description The paused type (scope type)
       * @example null
       */
      type: string | null;
      /**
       * @description The paused group's lock id (scope group)
       * @example 26
       */
      lockId: string | null;
      /**
       * @description The paused group's string key, when it has one
       * @example null
       */
      groupKey: string | null;
      /**
       * @description The paused tenant (scope tenant)
       * @example null
       */
      tenant: string | null;
      /** @example payments API down */
      reason: string | null;
      /** @example 2026-12-01T16:00:00.000Z */
      createdAt: string;
      /**
       * @description When a timed pause ends by itself; null: until resumed
       * @example null
       */
      until: string | null;
    };
    PausesPageDto: {
      items: components['schemas']['PauseResponseDto'][];
      /**
       * @description Pass as `after` for the next page; null on the last page
       * @example null
       */
      nextCursor: string | null;
    };
    DrainResponseDto: {
      /**
       * @description The queue is paused: no instance claims anything
       * @example true
       */
      draining: boolean;
      /**
       * @description Actions running now, on every instance
       * @example 2
       */
      running: number;
      /**
       * @description Draining and nothing running
       * @example false
       */
      drained: boolean;
      /**
       * @description Since when the queue is paused
       * @example 2026-12-01T16:00:00.000Z
       */
      since: string | null;
      /** @example drain */
      reason: string | null;
    };
    RateLimitValueDto: {
      /** @example 20 */
      perSecond: number;
      /** @example 1 */
      burst: number;
    };
    RateLimitResponseDto: {
      /** @example invoice.send */
      type: string;
      /**
       * @description Starts per second in force, on all instances together
       * @example 20
       */
      perSecond: number;
      /** @example 1 */
      burst: number;
      /**
       * @description override: PUT /rate-limits/:type; handler: @ActionHandler rateLimit
       * @example override
       * @enum {string}
       */
      source: 'override' | 'handler';
      handlerDefault: components['schemas']['RateLimitValueDto'] | null;
      /** @example 2026-12-01T16:00:00.000Z */
      updatedAt: string;
    };
    GroupRateLimitResponseDto: {
      /**
       * @description The group's lock id
       * @example 42
       */
      lockId: string;
      /**
       * @description The group's string key, when it has one
       * @example tenant:42
       */
      groupKey: string | null;
      /**
       * @description The group's starts per second, on all instances together: its starts are at least 1/perSecond s apart
       * @example 5
       */
      perSecond: number;
      /**
       * @description Starts allowed in quick succession after a quiet spell
       * @example 1
       */
      burst: number;
      /** @example 2026-12-01T16:00:00.000Z */
      updatedAt: string;
    };
    RateLimitsDto: {
      /** @description Limits per action type */
      items: components['schemas']['RateLimitResponseDto'][];
      /** @description Limits per group, the first 100 in lockId order */
      groups: components['schemas']['GroupRateLimitResponseDto'][];
      /**
       * @description More group limits: pass as `after` to GET /rate-limits/groups; null when `groups` is all of them
       * @example null
       */
      groupsNextCursor: string | null;
    };
    GroupRateLimitsPageDto: {
      items: components['schemas']['GroupRateLimitResponseDto'][];
      /**
       * @description Pass as `after` for the next page; null on the last page
       * @example null
       */
      nextCursor: string | null;
    };
    SetRateLimitDto: {
      /**
       * @description Starts per second, on all instances together
       * @example 20
       */
      perSecond: number;
      /**
       * @description Starts allowed at once after a quiet spell
       * @default 1
       */
      burst?: number;
    };
    TenantSettingsResponseDto: {
      /** @example acme */
      tenant: string;
      /**
       * @description Heads per turn in the claim, relative to the other tenants; default 1
       * @example 3
       */
      weight: number;
      /**
       * @description The most of its actions running at once, or null: no cap
       * @example 10
       */
      maxRunning: number | null;
      /**
       * @description Starts per second on all instances together, or null: no rate limit
       * @example null
       */
      ratePerSecond: number | null;
      /**
       * @description Starts allowed at once after a quiet spell, with ratePerSecond
       * @example null
       */
      rateBurst: number | null;
      /**
       * @description false: nothing stored, these are the defaults
       * @example true
       */
      stored: boolean;
      /**
       * Format: date-time
       * @example 2026-12-06T05:00:00.000Z
       */
      updatedAt: string | null;
    };
    TenantSettingsPageDto: {
      items: components['schemas']['TenantSettingsResponseDto'][];
      /**
       * @description Pass as `after` for the next page; null on the last page
       * @example null
       */
      nextCursor: string | null;
    };
    SetTenantSettingsDto: {
      /**
       * @description Its share of the claim: heads per turn relative to the other tenants with ready heads; a number > 0 and <= 1000 (0.5: a head every other turn)
       * @default 1
       * @example 3
       */
      weight?: number;
      /**
       * @description The most of its actions running at once; null or absent: no cap
       * @example 10
       */
      maxRunning?: number | null;
      /**
       * @description Starts per second for this tenant on all instances together; null or absent: no rate limit
       * @example 50
       */
      ratePerSecond?: Record<string, never> | null;
      /**
       * @description Starts allowed at once after a quiet spell (with ratePerSecond)
       * @default 1
       */
      rateBurst?: number | null;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  ActionsController_list: {
    parameters: {
      query?: {
        status?: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
        lockId?: string;
        /** @description Only the group of this string group key (not with lockId) */
        groupKey?: string;
        type?: string;
        limit?: number;
        /** @description The last id of the previous page */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description At most `limit` items, fewer when their payloads and results reach MAX_RESPONSE_BYTES (then `nextCursor` is set); an action whose content alone is over MAX_RESPONSE_BYTES is listed without it (`contentOmitted`, with `contentBytes`) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionsPageResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  ActionsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description W3C Trace Context of the caller (version 00). Stored with the action(s) when no OpenTelemetry span is active in this service, so each attempt's span joins the caller's trace; an invalid value is ignored, as the W3C recommendation says. */
        traceparent?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateActionDto'];
      };
    };
    responses: {
      /** @description The idempotency key was already used: the existing action */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionResponseDto'];
        };
      };
      /** @description Enqueued */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The idempotency key belongs to a different action */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Body over BODY_LIMIT_BYTES */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  ActionsController_createBatch: {
    parameters: {
      query?: never;
      header?: {
        /** @description W3C Trace Context of the caller (version 00). Stored with the action(s) when no OpenTelemetry span is active in this service, so each attempt's span joins the caller's trace; an invalid value is ignored, as the W3C recommendation says. */
        traceparent?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateActionsBatchDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionsBatchResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Body over BODY_LIMIT_BYTES */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  ActionsController_get: {
    parameters: {
      query?: {
        /** @description `false`: without payload, result, lastError and the trace's errors and stacks (`contentOmitted`, with `contentBytes`), so it always answers; for an action too large to read whole (413) */
        content?: 'true' | 'false';
      };
      header?: never;
      path: {
        /** @description Positive integer id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionWithTraceResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Its payload, result, error and trace are over MAX_RESPONSE_BYTES; `message` names `content=false`, which reads it without them */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  ActionsController_cancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Cancelled, or still running with cancelRequestedAt set */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionCommandResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Done or cancelled already */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  ActionsController_retry: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActionCommandResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Not failed, or already retried */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description A `skip` action whose payload is over the database's payload limit (aq.max_payload_bytes) cannot be enqueued again */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_blocked: {
    parameters: {
      query?: {
        limit?: number;
        /** @description The last lockId of the previous page (`nextCursor`) */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BlockedGroupsPageDto'];
        };
      };
      /** @description limit or after is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_deepest: {
    parameters: {
      query?: {
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeepestGroupsDto'];
        };
      };
      /** @description limit is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_stateByKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The string group key, URL-encoded */
        groupKey: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupHandlerStateResponseDto'];
        };
      };
      /** @description groupKey is not a valid group key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The key was never used, or its group has no state */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The state is over MAX_RESPONSE_BYTES (the message says how to read it with SQL) */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_deleteStateByKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The string group key, URL-encoded */
        groupKey: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description groupKey is not a valid group key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The key was never used, or its group has no state */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_byKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The string group key, URL-encoded */
        groupKey: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupResponseDto'];
        };
      };
      /** @description groupKey is not a valid group key */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description No action was ever enqueued with this groupKey */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        lockId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupResponseDto'];
        };
      };
      /** @description lockId is not a signed 64-bit integer */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_timeline: {
    parameters: {
      query?: {
        limit?: number;
        /** @description Only actions with a smaller id: pass `nextBefore` of the previous answer */
        before?: string;
      };
      header?: never;
      path: {
        lockId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupTimelineDto'];
        };
      };
      /** @description lockId, limit or before is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_handlerStateOf: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        lockId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupHandlerStateResponseDto'];
        };
      };
      /** @description lockId is not a signed 64-bit integer */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The group has no state */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The state is over MAX_RESPONSE_BYTES (the message says how to read it with SQL) */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupsController_deleteHandlerState: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        lockId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description lockId is not a signed 64-bit integer */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The group has no state */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  StatsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StatsResponseDto'];
        };
      };
      /** @description An unknown query parameter; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  StatsController_activity: {
    parameters: {
      query?: {
        minutes?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActivityDto'];
        };
      };
      /** @description minutes is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupDepthLimitsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDepthLimitsResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupDepthLimitsController_setGlobal: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetGroupDepthLimitDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDepthLimitResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupDepthLimitsController_removeGlobal: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description None was set */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupDepthLimitsController_setForType: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        type: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetGroupDepthLimitDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDepthLimitResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  GroupDepthLimitsController_removeForType: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        type: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description None was set for this type */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  SchedulesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SchedulesResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  SchedulesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateScheduleDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description A schedule of that name exists */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  SchedulesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  SchedulesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  BulkOperationsController_list: {
    parameters: {
      query?: {
        /** @description Only operations with a smaller id (the last id of the previous page) */
        before?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkOperationsResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  BulkOperationsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateBulkOperationDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkOperationResponseDto'];
        };
      };
      /** @description A field is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description A retry copy met its group's maximum depth; the chunks before it stay applied */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  PausesController_list: {
    parameters: {
      query?: {
        /** @description Only pauses of this scope */
        scope?: 'queue' | 'type' | 'group' | 'tenant';
        limit?: number;
        /** @description The last id of the previous page (its nextCursor) */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PausesPageDto'];
        };
      };
      /** @description scope, limit or after is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  PausesController_pause: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreatePauseDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PauseResponseDto'];
        };
      };
      /** @description A field is invalid or does not fit the scope; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  PausesController_resume: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Resumed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description id is not a positive 64-bit integer */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description No active pause has this id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  DrainController_state: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DrainResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  DrainController_start: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DrainResponseDto'];
        };
      };
      /** @description The body has a field: the route takes none */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  DrainController_stop: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Resumed (also when no drain was on) */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RateLimitsDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_listGroups: {
    parameters: {
      query?: {
        limit?: number;
        /** @description The last lockId of the previous page (its nextCursor) */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupRateLimitsPageDto'];
        };
      };
      /** @description limit or after is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_setGroupByKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The string group key, URL-encoded */
        groupKey: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetRateLimitDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupRateLimitResponseDto'];
        };
      };
      /** @description groupKey, perSecond or burst is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_removeGroupByKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The string group key, URL-encoded */
        groupKey: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed: the group starts its actions without spacing again */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description groupKey is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The group has no rate limit */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_setGroup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        lockId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetRateLimitDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupRateLimitResponseDto'];
        };
      };
      /** @description lockId, perSecond or burst is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_removeGroup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        lockId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description lockId is not a signed 64-bit integer */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The group has no rate limit */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_set: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        type: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetRateLimitDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RateLimitResponseDto'];
        };
      };
      /** @description type, perSecond or burst is invalid; `message` names it */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  RateLimitsController_clear: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        type: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Cleared */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description type is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description The type has no override */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  TenantsController_list: {
    parameters: {
      query?: {
        limit?: number;
        /** @description The last tenant of the previous page (its nextCursor) */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TenantSettingsPageDto'];
        };
      };
      /** @description limit or after is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  TenantsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenant: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TenantSettingsResponseDto'];
        };
      };
      /** @description tenant is not a valid tenant name */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  TenantsController_put: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenant: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetTenantSettingsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TenantSettingsResponseDto'];
        };
      };
      /** @description tenant or a field is invalid; `message` names it; nothing is written */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  TenantsController_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenant: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description tenant is not a valid tenant name */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
      /** @description No settings are stored for this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
  HealthController_live: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Health Check is successful */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @example ok */
            status?: string;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /** @example {} */
            error?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            };
          };
        };
      };
      /**
       * @description The database or the worker loop is down; the body names it
       *
       *     The Health Check is not successful
       */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @example error */
            status?: string;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect"
             *       }
             *     }
             */
            error?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       },
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect"
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            };
          };
        };
      };
    };
  };
  HealthController_ready: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Health Check is successful */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @example ok */
            status?: string;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /** @example {} */
            error?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            };
          };
        };
      };
      /**
       * @description Not ready; the body names the failing part
       *
       *     The Health Check is not successful
       */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @example error */
            status?: string;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect"
             *       }
             *     }
             */
            error?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up"
             *       },
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect"
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                status: string;
              } & {
                [key: string]: unknown;
              };
            };
          };
        };
      };
    };
  };
  MetricsController_scrape: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text exposition format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description Only when the API_KEY setting is present: the key is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "statusCode": 401,
           *       "message": "API key required: send Authorization: Bearer <key> or x-api-key: <key>",
           *       "error": "Unauthorized"
           *     }
           */
          'application/json': components['schemas']['ErrorResponseDto'];
        };
      };
    };
  };
}

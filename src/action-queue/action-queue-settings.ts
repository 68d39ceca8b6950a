import { loadQueueSettings, QueueSettings } from '../config/settings';
import { ActionQueueModuleOptions, ActionQueueRoutesOptions } from './action-queue-options.interface';

/**
 * Defaults of an embedded module that differ from the service's: nothing that
 * acts on the whole process (process-level error handlers, a watchdog thread
 * that may kill it) unless asked for.
 */
export const EMBEDDED_DEFAULTS: Partial<QueueSettings> = {
  STRAY_ERROR_POLICY: 'off',
  WATCHDOG_ENABLED: false,
};

/** Each module option and the setting it fills, for building settings and naming options in errors. */
const OPTION_SETTINGS: { option: string; setting: keyof QueueSettings; read: (o: ActionQueueModuleOptions) => unknown }[] = [
  { option: 'database.poolSize', setting: 'DB_POOL_SIZE', read: (o) => ('poolSize' in o.database ? o.database.poolSize : undefined) },
  { option: 'database.pooler', setting: 'DATABASE_POOLER', read: (o) => o.database.pooler },
  { option: 'database.listenUrl', setting: 'LISTEN_DATABASE_URL', read: (o) => o.database.listenUrl },
  { option: 'worker.enabled', setting: 'WORKER_ENABLED', read: (o) => o.worker?.enabled },
  { option: 'worker.concurrency', setting: 'WORKER_CONCURRENCY', read: (o) => o.worker?.concurrency },
  { option: 'worker.pollIntervalMs', setting: 'WORKER_POLL_INTERVAL_MS', read: (o) => o.worker?.pollIntervalMs },
  { option: 'worker.shutdownTimeoutMs', setting: 'SHUTDOWN_TIMEOUT_MS', read: (o) => o.worker?.shutdownTimeoutMs },
  { option: 'worker.id', setting: 'WORKER_ID', read: (o) => o.worker?.id },
  { option: 'worker.stuckSlotsMaxPercent', setting: 'STUCK_SLOTS_MAX_PERCENT', read: (o) => o.worker?.stuckSlotsMaxPercent },
  { option: 'lease.durationMs', setting: 'LEASE_MS', read: (o) => o.lease?.durationMs },
  { option: 'lease.reaperIntervalMs', setting: 'REAPER_INTERVAL_MS', read: (o) => o.lease?.reaperIntervalMs },
  { option: 'retry.maxAttempts', setting: 'DEFAULT_MAX_ATTEMPTS', read: (o) => o.retry?.maxAttempts },
  { option: 'retry.backoffBaseMs', setting: 'RETRY_BACKOFF_BASE_MS', read: (o) => o.retry?.backoffBaseMs },
  { option: 'retry.backoffCapMs', setting: 'RETRY_BACKOFF_CAP_MS', read: (o) => o.retry?.backoffCapMs },
  { option: 'retention.days', setting: 'RETENTION_DAYS', read: (o) => o.retention?.days },
  { option: 'retention.intervalMs', setting: 'RETENTION_INTERVAL_MS', read: (o) => o.retention?.intervalMs },
  { option: 'retention.idempotencyWindowDays', setting: 'IDEMPOTENCY_WINDOW_DAYS', read: (o) => o.retention?.idempotencyWindowDays },
  { option: 'maxPayloadBytes', setting: 'MAX_PAYLOAD_BYTES', read: (o) => o.maxPayloadBytes },
  { option: 'containment.strayErrorPolicy', setting: 'STRAY_ERROR_POLICY', read: (o) => o.containment?.strayErrorPolicy },
  { option: 'containment.watchdog', setting: 'WATCHDOG_ENABLED', read: (o) => o.containment?.watchdog },
];

/**
 * The {@link QueueSettings} the queue's providers read (token SETTINGS), from the
 * module options: the embedded defaults, then `options.settings`, then each
 * option, validated by the same rules as the environment.
 *
 * @param options the module options.
 * @param routes the mounted routes (API_ENABLED says whether the action routes are served).
 * @throws Error naming each invalid option, e.g. `Invalid ActionQueueModule option worker.concurrency (WORKER_CONCURRENCY)=0: ...`.
 */
export function settingsFromOptions(options: ActionQueueModuleOptions, routes: Required<ActionQueueRoutesOptions> | null): QueueSettings {
  const values: Record<string, unknown> = { ...EMBEDDED_DEFAULTS, ...options.settings };
  for (const { setting, read } of OPTION_SETTINGS) {
    const value = read(options);
    if (value !== undefined) values[setting] = value;
  }
  values.API_ENABLED = routes?.actions ?? false;
  try {
    return loadQueueSettings(values);
  } catch (error) {
    // Name the option the caller wrote, next to the setting it fills.
    const message = (error as Error).message.replace(/^Invalid setting (\w+)/gm, (line, setting: string) => {
      const entry = OPTION_SETTINGS.find((e) => e.setting === setting && e.read(options) !== undefined);
      return entry ? `Invalid ActionQueueModule option ${entry.option} (${setting})` : `Invalid ActionQueueModule setting ${setting}`;
    });
    throw new Error(message);
  }
}

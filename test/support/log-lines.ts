/** pino's numeric level of `error` (the service logs JSON lines with numeric levels: 30 info, 40 warn, 50 error, 60 fatal). */
export const PINO_ERROR_LEVEL = 50;

/** One line of a service's output that is an error, or not a log line at all. */
export interface ErrorLogLine {
  /** pino's numeric level, or null for a line that is not a JSON log line (a raw stack trace, a crash message). */
  level: number | null;
  /** The log message, or the raw line. */
  msg: string;
}

/**
 * The lines of a service's output (pino JSON, one object a line) logged at
 * `minLevel` or above, plus every non-empty line that is not JSON (what a
 * crash prints). Matching /ERROR/ on this output can never fail: pino writes
 * levels as numbers, so this reads them.
 *
 * @param output the process's stdout and stderr (`ServiceProcess.output()`).
 * @param minLevel lowest level reported; default error (50).
 */
export function errorLogLines(output: string, minLevel = PINO_ERROR_LEVEL): ErrorLogLine[] {
  const found: ErrorLogLine[] = [];
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      found.push({ level: null, msg: line });
      continue;
    }
    const entry = parsed as { level?: unknown; msg?: unknown };
    if (typeof entry.level !== 'number') found.push({ level: null, msg: line });
    else if (entry.level >= minLevel) found.push({ level: entry.level, msg: String(entry.msg) });
  }
  return found;
}

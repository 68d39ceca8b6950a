import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** Statuses that say "someone tried what is not allowed": logged even when answered before Nest's router (and its request log). */
export const LOGGED_REFUSALS = new Set([401, 403, 408, 413, 415]);

/** Refusal lines written per window at most; the rest are counted and summed up in one line. */
export const REFUSAL_LOG_BURST = 20;

/** Length of a refusal-log window (ms). */
export const REFUSAL_LOG_WINDOW_MS = 10_000;

/**
 * Writes at most `burst` lines per `windowMs` and counts the rest; the first
 * line of the next window says how many were left out. Keeps a flood of
 * probes from flooding the log (or the disk) while still showing it.
 */
export class RateLimitedLog {
  private windowStart = 0;
  private written = 0;
  private dropped = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly burst = REFUSAL_LOG_BURST,
    private readonly windowMs = REFUSAL_LOG_WINDOW_MS,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Logs `line` unless this window's burst is spent. */
  log(line: string): void {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      if (this.dropped > 0) this.write(`${this.dropped} more refused requests were not logged in the previous ${this.windowMs / 1000} s`);
      this.windowStart = t;
      this.written = 0;
      this.dropped = 0;
    }
    if (this.written < this.burst) {
      this.written++;
      this.write(line);
    } else {
      this.dropped++;
    }
  }
}

/**
 * Express middleware, installed first: when the answer is a refusal
 * ({@link LOGGED_REFUSALS}: a missing or wrong key, a foreign Host or
 * cross-site request, a slow or oversized body, a wrong content type), logs
 * one warning with the status, method, path (never the query string, which
 * may hold a credential) and client address, rate-limited by {@link RateLimitedLog}.
 * Probing is then visible, while no header is ever written.
 */
export function refusalLog(logger = new Logger('HttpRefusal')) {
  const log = new RateLimitedLog((line) => logger.warn(line));
  return (req: Request, res: Response, next: NextFunction): void => {
    res.once('finish', () => {
      if (!LOGGED_REFUSALS.has(res.statusCode)) return;
      const path = req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path;
      log.log(`Refused ${req.method} ${path}: ${res.statusCode} to ${req.socket.remoteAddress ?? 'unknown address'}`);
    });
    next();
  };
}

import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * Express middleware, installed before the body parser: a request whose body
 * has not fully arrived `timeoutMs` after its headers did is answered 408 and
 * its connection closed, so a client trickling a body cannot hold a socket
 * (and a parser) for Node's default 300 s. A request whose body has arrived
 * is never cut, however long its handler takes.
 *
 * @param timeoutMs REQUEST_TIMEOUT_MS.
 */
export function requestDeadline(timeoutMs: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const timer = setTimeout(() => {
      if (req.complete || res.headersSent) return;
      res
        .status(408)
        .set('Connection', 'close')
        .json({
          statusCode: 408,
          message: `request body not received within ${timeoutMs} ms (REQUEST_TIMEOUT_MS)`,
          error: 'Request Timeout',
        });
      // Stop reading what the client still trickles in.
      res.once('finish', () => req.socket.destroy());
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

/**
 * Node's own limits on the HTTP server, as a backstop for what the middleware
 * does not see (headers trickled in before any middleware runs): headers
 * within min(10 s, REQUEST_TIMEOUT_MS), the whole request within REQUEST_TIMEOUT_MS.
 * Node checks these every 30 s (`connectionsCheckingInterval`), so they cut
 * a slow client between the timeout and 30 s after it.
 */
export function applyServerTimeouts(server: Server, timeoutMs: number): void {
  server.requestTimeout = timeoutMs;
  server.headersTimeout = Math.min(10_000, timeoutMs);
}

import { Logger } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import { shutdownStep } from '../shutdown-steps';

/**
 * Longest wait, on shutdown, for the HTTP requests still being answered
 * (ms); then their connections are closed.
 */
export const HTTP_CLOSE_TIMEOUT_MS = 1_000;

/**
 * Nest's Express adapter, whose close (a step of the app's shutdown, after
 * the worker has drained) waits at most HTTP_CLOSE_TIMEOUT_MS. Node's
 * `server.close()` stops accepting and closes idle keep-alive connections,
 * but then waits for every request being answered, and a request waiting on
 * a database that stopped answering (a partition) would hold the shutdown
 * until TCP gives up, minutes later. After the wait, every connection left
 * is closed (its client sees the connection end without an answer).
 */
export class BoundedCloseExpressAdapter extends ExpressAdapter {
  /** Closes the HTTP server, waiting at most HTTP_CLOSE_TIMEOUT_MS for the requests in flight; never rejects. */
  override async close(): Promise<void> {
    const server = this.getHttpServer() as Server | undefined;
    const closed = super.close();
    if (!server || !closed || (await shutdownStep('HTTP server: requests in flight', closed, HTTP_CLOSE_TIMEOUT_MS))) return;
    new Logger('HttpServer').warn(`HTTP requests still in flight ${HTTP_CLOSE_TIMEOUT_MS} ms into the shutdown; closing their connections`);
    server.closeAllConnections();
  }
}

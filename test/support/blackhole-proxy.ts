import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL whose traffic can be cut without closing
 * anything: `blackhole()` stops forwarding in both directions, so the
 * connections behind it hang (no RST, no FIN), as in a network partition.
 * Nothing is dropped: reading pauses and TCP holds the bytes back, as it
 * would retransmit them, and `restore()` lets them flow again. A connection
 * opened during a cut reaches PostgreSQL only at `restore()`.
 */
export interface BlackholeProxy {
  /** The proxy's URL form of `targetUrl`: same database, the proxy's port. */
  url: string;
  blackhole(): void;
  /**
   * Cuts every connection (as {@link blackhole}) the moment a client sends
   * bytes containing `text` (a statement's text or its prepared name, e.g.
   * `aq_claim_actions`, which PostgreSQL's protocol carries in clear): that
   * statement reaches the server, its answer never comes back. Armed once;
   * resolves when it fired.
   */
  blackholeOn(text: string): Promise<void>;
  /** Client connections accepted so far (a client connecting during a cut is accepted, and then hangs). */
  accepted(): number;
  restore(): void;
  close(): Promise<void>;
}

/** @param targetUrl a postgres:// URL on 127.0.0.1. */
export async function startBlackholeProxy(targetUrl: string): Promise<BlackholeProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const links: { from: Socket; to: Socket }[] = [];
  let cut = false;
  let trigger: { text: string; fire: () => void } | null = null;
  let accepted = 0;
  // Connections opened during a cut reach PostgreSQL only at restore(): a
  // paused socket never sees its client's FIN, so an upstream opened at once
  // would hold a PostgreSQL backend (waiting for a startup packet) until the
  // server's authentication_timeout, and a client retrying through a long cut
  // exhausts the server's connection slots ("too many clients already").
  let deferredConnects: Array<() => void> = [];
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = new Socket();
    const connectUpstream = () => upstream.connect(Number(target.port || 5432), target.hostname);
    if (!cut) connectUpstream();
    else deferredConnects.push(() => (client.destroyed ? upstream.destroy() : connectUpstream()));
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      links.push({ from, to });
      // Before the pipe's own listener: the cut happens as this chunk goes through.
      if (from === client)
        from.prependListener('data', (chunk: Buffer) => {
          if (trigger && chunk.includes(trigger.text)) trigger.fire();
        });
      if (!cut) from.pipe(to);
      else from.pause();
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.port = String((server.address() as AddressInfo).port);
  const blackhole = () => {
    cut = true;
    for (const { from, to } of links) {
      from.unpipe(to);
      from.pause();
    }
  };
  return {
    url: url.toString(),
    blackhole,
    blackholeOn: (text) =>
      new Promise<void>((resolve) => {
        trigger = {
          text,
          fire: () => {
            trigger = null;
            blackhole();
            resolve();
          },
        };
      }),
    accepted: () => accepted,
    restore: () => {
      cut = false;
      trigger = null;
      for (const connect of deferredConnects) connect();
      deferredConnects = [];
      for (const { from, to } of links) if (!from.destroyed) from.pipe(to);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// Connections on which no request has begun, closed at shutdown. Node's server.close() closes kept-alive
// connections that are idle between requests, but not one that has not received a byte yet, so such a connection
// would hold the shutdown for its whole grace period though nothing is in flight on it. Clients open them on their
// own: Node 20's fetch (undici 6.24) opens one each time a streaming response is aborted and never uses it (as
// undici 8.10.1 does, nodejs/undici#5845), so every closed `vellum/client` subscription left one; browsers open
// them speculatively. A connection made as the server begins closing, whose request has not arrived yet, is closed
// too: that request would have been refused (503) all the same.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How often, while the server closes, unused connections are looked for (new ones may come until it stops listening). */
const SWEEP_INTERVAL_MS = 50;

export interface UnusedConnections {
  /** Closes the unused connections now and until `stop()`. */
  closeWhileShuttingDown(): void;
  stop(): void;
}

export function watchUnusedConnections(server: Server): UnusedConnections {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  const sweep = () => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    closeWhileShuttingDown() {
      sweep();
      timer ??= setInterval(sweep, SWEEP_INTERVAL_MS);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

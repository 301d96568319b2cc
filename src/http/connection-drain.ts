import type http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

/**
 * A stop that waits for the requests in flight and for nothing else. Node's `server.close()` waits for every open
 * connection, and `closeIdleConnections()` skips one on which a client has not (yet) sent a request: such a
 * connection — a browser's or HTTP client's spare socket — held a stop for the headers timeout (a minute). Here each
 * connection counts its requests in flight: on a stop, those with none are closed at once, the others as soon as
 * their last answer is sent.
 */
export function drainOnClose(server: http.Server | https.Server): () => Promise<void> {
  const inFlight = new Map<Socket, number>();
  let stopping = false;
  // over HTTPS requests arrive on the TLS socket, not on the TCP one under it
  server.on(server instanceof https.Server ? 'secureConnection' : 'connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (stopping && left === 0) socket.destroy();
    });
  });
  return () =>
    new Promise<void>((resolve) => {
      stopping = true;
      server.close(() => resolve());
      for (const [socket, requests] of inFlight) if (requests === 0) socket.destroy();
    });
}

import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP relay between central and PostgreSQL that the test can cut (refusing), silence, or restore. */
export async function relayTo(target: URL) {
  const sockets = new Set<Socket>();
  let mode: 'relay' | 'silent' = 'relay';
  let server: Server | null = null;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => client.destroy());
      if (mode === 'silent') return; // accepts, never answers: the pool's connect must time out
      const upstream = createConnection(Number(target.port || 5432), target.hostname);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as { port: number }).port;
  };
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  await listen();
  return {
    get port() {
      return port;
    },
    /** Nothing listens any more: every connection is cut and new ones are refused. */
    async down() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        cutAll();
      });
    },
    up: () => listen(),
    /** Connections are cut and new ones accepted but never answered. */
    silence() {
      mode = 'silent';
      cutAll();
    },
    relay() {
      mode = 'relay';
    },
    async close() {
      cutAll();
      if (server!.listening) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

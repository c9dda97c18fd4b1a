import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Where `npm run build` puts the renderer: out/renderer of the project this code runs from. The
 * project root is the first folder up with a package.json — from the sources (src/server/http), the
 * built command line (out/cli) or the desktop bundle (out/main) alike.
 */
export function builtRendererDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'out', 'renderer');
    const up = dirname(dir);
    if (up === dir) return fileURLToPath(new URL('../../../out/renderer/', import.meta.url));
    dir = up;
  }
}

/**
 * Serves the built renderer at `/`, so any browser on the LAN (a tablet kiosk) gets the same
 * screens as the desktop app. Only the built files get routes: every other path still reaches
 * the interface or its 404. Returns false when the renderer has not been built.
 */
export async function registerRenderer(app: FastifyInstance, dir: string): Promise<boolean> {
  if (!existsSync(join(dir, 'index.html'))) return false;
  await app.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: ['index.html'], decorateReply: false });
  // The back office is the same page at /admin (its screens live in the URL's hash).
  const page = await readFile(join(dir, 'index.html'));
  for (const path of ['/admin', '/admin/']) {
    app.get(path, { schema: { hide: true } }, (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  }
  return true;
}

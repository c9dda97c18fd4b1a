import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that checks every request's
// Punchcard-Signature the way docs/decisions.md tells integrators to (HMAC-SHA256 of "<t>.<raw
// body>" under the endpoint's secret, compared in constant time), written here independently of
// the node's own signing code.

export interface ReceivedWebhook {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: any;
  /** t= of the signature header. */
  timestamp: number;
  /** The v1= values of the signature header. */
  signatures: string[];
  /** True when one v1 matches under one of the receiver's secrets. */
  verified: boolean;
  /** Which of the receiver's secrets matched (indexes into `secrets`). */
  matchedSecrets: number[];
  answeredWith: number | 'hang';
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The secrets signatures are checked against (set after creating the endpoint). */
  secrets: string[];
  /** The answers of the next requests, in order; 200 once they run out. 'hang' never answers. */
  answers: Array<number | 'hang'>;
  /** The requests of one event type, in arrival order. */
  ofType(type: string): ReceivedWebhook[];
  /** Resolves when `count` requests have arrived. */
  waitForCount(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function hmac(secret: string, t: number, raw: string): string {
  return createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
}

function matches(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(given, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<ServerResponse>();
  const receiver = {
    url: '',
    received,
    secrets: [] as string[],
    answers: [] as Array<number | 'hang'>,
    ofType: (type: string) => received.filter((r) => r.body?.type === type),
    async waitForCount(count: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${received.length} of ${count} webhooks arrived`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const header = String(request.headers['punchcard-signature'] ?? '');
      const pairs = header.split(',').map((part) => part.split('=') as [string, string]);
      const timestamp = Number(pairs.find(([k]) => k === 't')?.[1]);
      const signatures = pairs.filter(([k]) => k === 'v1').map(([, v]) => v);
      const matchedSecrets = receiver.secrets.flatMap((secret, index) => (signatures.some((s) => matches(hmac(secret, timestamp, raw), s)) ? [index] : []));
      const answer = receiver.answers.shift() ?? 200;
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      received.push({ path: request.url ?? '/', headers: request.headers, raw, body, timestamp, signatures, verified: matchedSecrets.length > 0, matchedSecrets, answeredWith: answer });
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/test-node';

// Two refusals Node made by itself with an empty body and no log line: an HTTP/1.1 request
// without Host (400) and an Expect other than 100-continue (417). Both now answer in the node's
// envelope with a stable code and are logged like any reply; Expect: 100-continue still works.
// Raw sockets: fetch never sends these.

let node: TestNode;
let port: number;
let apiKey: string;

beforeAll(async () => {
  node = await startTestNode({ traceLog: true });
  apiKey = (await node.addVendor('Precondition Coffee')).apiKey;
  port = Number(new URL(node.url).port);
});

afterAll(async () => {
  await node?.close();
});

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Everything the socket received, interim 100 Continue included. */
  text: string;
}

/** Writes `chunks` one after another (a pause between them), reads until the node closes the connection. */
function rawExchange(chunks: string[], pauseMs = 0): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (!socket.destroyed) socket.write(chunk);
      }
    });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      // The final reply follows any interim 100 Continue.
      const final = text.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      const head = final.slice(0, final.indexOf('\r\n\r\n'));
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const body = final.slice(final.indexOf('\r\n\r\n') + 4);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined, text });
    });
  });
}

async function logLines(): Promise<Array<Record<string, any>>> {
  await node.log!.flush();
  return readFileSync(node.log!.file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** The access log line of the request answered with `referenceId` (the envelope's reference_id names it). */
async function accessLine(referenceId: string): Promise<Record<string, any> | undefined> {
  // A line is written once its reply has gone: the client may read the reply first.
  for (let i = 0; i < 50; i++) {
    const line = (await logLines()).find((l) => l.reqId === referenceId && l.msg === 'request completed');
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

describe('an HTTP/1.1 request without Host', () => {
  it('legacy path: 400 host_required in the legacy envelope, connection closed, logged', async () => {
    const reply = await rawExchange([`GET /currencies HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n`]);
    expect(reply.status).toBe(400);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['connection']).toBe('close');
    expect(reply.body).toMatchObject({ code: 'host_required', message: 'An HTTP/1.1 request must name the host it is for in a Host header.' });

    const legacy = await rawExchange([`GET /user/profile?session_key=s HTTP/1.1\r\n\r\n`]);
    expect(legacy.status).toBe(400);
    expect(legacy.body.object).toBe('error');
    expect(legacy.body.error.code).toBe(400);
    expect(legacy.body.error.errors[0].reason).toBe('host_required');
    const line = await accessLine(legacy.body.error.reference_id as string);
    expect(line).toMatchObject({ req: { method: 'GET', url: '/user/profile?session_key=[redacted]' }, res: { statusCode: 400 } });
  });

  it('before the credential is looked at, and on an unknown path too', async () => {
    const unknown = await rawExchange([`GET /no/such/path HTTP/1.1\r\n\r\n`]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.errors[0].reason).toBe('host_required');
  });

  it('two Host headers: 400 host_required, whichever the version', async () => {
    for (const version of ['1.1', '1.0']) {
      const reply = await rawExchange([`GET /health HTTP/${version}\r\nHost: shop.example\r\nHost: other.example\r\n\r\n`]);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'host_required', message: 'A request must name the host it is for in one Host header, not several.' });
    }
  });

  it('an HTTP/1.0 request needs none, and an HTTP/1.1 one with Host is served as before', async () => {
    const old = await rawExchange([`GET /health HTTP/1.0\r\n\r\n`]);
    expect(old.status).toBe(200);
    const withHost = await rawExchange([`GET /health HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n`]);
    expect(withHost.status).toBe(200);
  });
});

describe('an Expect header', () => {
  it('one Node does not know: 417 expectation_failed in the envelope, logged, the body never read', async () => {
    const body = 'subtotal=1';
    const reply = await rawExchange([
      `POST /order?api_key=${apiKey} HTTP/1.1\r\nHost: shop.example\r\nExpect: 200-ok\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
    ]);
    expect(reply.status).toBe(417);
    expect(reply.headers['connection']).toBe('close');
    expect(reply.body.error.code).toBe(417);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'expectation_failed', message: 'This node cannot meet "Expect: 200-ok": it meets only Expect: 100-continue.' });
    const line = await accessLine(reply.body.error.reference_id as string);
    expect(line).toMatchObject({ req: { method: 'POST', url: '/order?api_key=[redacted]' }, res: { statusCode: 417 } });

    const resource = await rawExchange([`GET /health HTTP/1.1\r\nHost: shop.example\r\nExpect: something-else\r\n\r\n`]);
    expect(resource.status).toBe(417);
    expect(resource.body).toMatchObject({ code: 'expectation_failed' });
  });

  it('100-continue: 100 Continue, then the body is read and the request served', async () => {
    const body = JSON.stringify({ card_number: 'NOBODY-0001' });
    const reply = await rawExchange(
      [
        `POST /onscreen?api_key=${apiKey} HTTP/1.1\r\nHost: shop.example\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
        body,
      ],
      100,
    );
    expect(reply.text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    // The body arrived and was read: the card it names is looked for (an unknown one).
    expect(reply.status).toBe(404);
    expect(reply.body.error.errors[0].reason).toBe('customer_not_found');
  });
});

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isInternalAddress } from './endpoint-url';

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** The whole exchange (connect, send, the answer's status; its body is cut off then too), in ms. */
  timeoutMs: number;
  /** Connect to loopback and private addresses (--webhooks-allow-private). */
  allowPrivate: boolean;
  /** How host names are resolved: dns.lookup by default (tests answer with chosen addresses). */
  resolve?: ResolveAll;
}

/** dns.lookup with `all: true`: every address of a host name. */
export type ResolveAll = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** What the receiver answered; redirects are answers too (never followed). */
export interface WebhookAnswer {
  status: number;
}

/** The part of a receiver's answer we read; the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Resolves like dns.lookup, refusing internal addresses unless they are allowed. */
function guardedLookup(allowPrivate: boolean, resolve: ResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const usable = allowPrivate ? addresses : addresses.filter((a) => !isInternalAddress(a.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves to an internal address (allowed only with --webhooks-allow-private)`), { code: 'EADDRNOTALLOWED' });
        return callback(refused, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/**
 * POSTs one signed event. Resolves with the status of any answer (the caller judges it); rejects
 * on a refused address, a connection failure or the timeout. Redirects are not followed.
 */
export function postWebhook(post: WebhookPost): Promise<WebhookAnswer> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(post.url);
    } catch {
      reject(new Error('the endpoint URL is not valid'));
      return;
    }
    if (!post.allowPrivate && (url.protocol !== 'https:' || isInternalAddress(url.hostname))) {
      reject(new Error('the endpoint URL is plain http:// or internal (allowed only with --webhooks-allow-private)'));
      return;
    }
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...post.headers, 'content-length': Buffer.byteLength(post.body).toString() },
      lookup: guardedLookup(post.allowPrivate, post.resolve ?? dnsLookup),
      agent: false,
    });
    // One deadline for the whole exchange. Before the answer it fails the attempt; after it, it
    // closes a connection whose body has not ended (a receiver trickling bytes held a socket of
    // the node open for as long as it liked, one more per delivery).
    const timer = setTimeout(() => request.destroy(Object.assign(new Error(`no answer within ${post.timeoutMs} ms`), { code: 'ETIMEDOUT' })), post.timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      response.on('error', () => undefined);
      response.on('close', () => clearTimeout(timer));
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    request.end(post.body);
  });
}

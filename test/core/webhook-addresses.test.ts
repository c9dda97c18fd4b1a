import type { LookupAddress } from 'node:dns';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedIpv4 } from '../../src/core/webhooks/embedded-ipv4';
import { isInternalAddress } from '../../src/core/webhooks/endpoint-url';
import { postWebhook, type ResolveAll } from '../../src/core/webhooks/http-sender';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// IPv6 addresses that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo)
// reach that IPv4 host, so the webhook checks judge them by it: one embedding loopback or a
// private network is refused like the IPv4 address itself, one embedding a public address is not.
// Checked on the addresses alone, and on a delivery whose host name resolves to one of them.

const hex = (v4: string) => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};
const inverted = (v4: string) => v4.split('.').map((part) => 255 - Number(part)).join('.');

/** Every way an IPv6 address carries `v4`. */
const EMBEDDINGS: Record<string, (v4: string) => string> = {
  mapped: (v4) => `::ffff:${v4}`,
  'mapped, hex': (v4) => `::ffff:${hex(v4)}`,
  compatible: (v4) => `::${v4}`,
  translated: (v4) => `::ffff:0:${v4}`,
  NAT64: (v4) => `64:ff9b::${v4}`,
  'NAT64, hex': (v4) => `64:ff9b::${hex(v4)}`,
  '6to4': (v4) => `2002:${hex(v4)}:1::1`,
  'Teredo client': (v4) => `2001:0:4136:e378:8000:63bf:${hex(inverted(v4))}`,
  'Teredo server': (v4) => `2001:0:${hex(v4)}:8000:63bf:3fff:fdd2`,
};

describe('IPv6 addresses carrying an IPv4 address', () => {
  it('are refused when they carry a loopback, private, link-local or CGNAT address, in every form', () => {
    for (const v4 of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.10', '169.254.169.254', '100.64.0.1', '0.0.0.0']) {
      for (const [form, embed] of Object.entries(EMBEDDINGS)) expect(isInternalAddress(embed(v4)), `${form} of ${v4}: ${embed(v4)}`).toBe(true);
    }
  });

  it('are allowed when they carry a public address', () => {
    for (const v4 of ['8.8.8.8', '93.184.216.34']) {
      for (const [form, embed] of Object.entries(EMBEDDINGS)) expect(isInternalAddress(embed(v4)), `${form} of ${v4}: ${embed(v4)}`).toBe(false);
    }
    expect(isInternalAddress('2606:4700::6810:84e5')).toBe(false);
    expect(isInternalAddress('2001:db8::1')).toBe(false);
  });

  it('are judged exactly like the IPv4 address they carry (any address, any form)', () => {
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
    fc.assert(
      fc.property(v4, fc.constantFrom(...Object.keys(EMBEDDINGS)), (address, form) => {
        expect(isInternalAddress(EMBEDDINGS[form]!(address))).toBe(isInternalAddress(address));
      }),
      { seed: 20261203, numRuns: 2000 },
    );
  });

  it('reads the IPv4 address out of each form', () => {
    expect(embeddedIpv4('64:ff9b::a00:1')).toEqual(['10.0.0.1']);
    expect(embeddedIpv4('2002:c0a8:101::1')).toEqual(['192.168.1.1']);
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(embeddedIpv4('::ffff:7f00:1')).toEqual(['127.0.0.1']);
    expect(embeddedIpv4('fe80::1%eth0')).toEqual([]);
    expect(embeddedIpv4('2606:4700::6810:84e5')).toEqual([]);
    expect(embeddedIpv4('not an address')).toEqual([]);
  });

  it('the local-use NAT64 block (64:ff9b:1::/48) is internal whatever it carries; IPv6 with a zone is judged without it', () => {
    expect(isInternalAddress('64:ff9b:1::808:808')).toBe(true);
    expect(isInternalAddress('64:ff9b:1:ffff::1')).toBe(true);
    expect(isInternalAddress('fe80::1%eth0')).toBe(true);
    expect(isInternalAddress('[64:ff9b::7f00:1]')).toBe(true);
  });
});

describe('a delivery to a name that resolves to such an address', () => {
  let receiver: WebhookReceiver;
  afterEach(() => receiver?.close());

  /** A resolver that answers every name with `addresses`. */
  const answering =
    (...addresses: string[]): ResolveAll =>
    (_hostname, _options, callback) =>
      callback(
        null,
        addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
      );

  const post = (url: string, resolve: ResolveAll, allowPrivate = false) => postWebhook({ url, body: '{}', headers: { 'content-type': 'application/json' }, timeoutMs: 2000, allowPrivate, resolve });

  it('never connects: every answer carries an internal IPv4 address', async () => {
    for (const answer of ['64:ff9b::7f00:1', '2002:7f00:1::1', '::127.0.0.1', '::ffff:127.0.0.1', '2001:0:4136:e378:8000:63bf:80ff:fffe', '64:ff9b:1::808:808']) {
      await expect(post('https://hooks.example.com/in', answering(answer)), answer).rejects.toMatchObject({ code: 'EADDRNOTALLOWED', message: expect.stringMatching(/internal address/) });
    }
    await expect(post('https://hooks.example.com/in', answering('64:ff9b::a9fe:a9fe', '::ffff:10.0.0.1'))).rejects.toMatchObject({ code: 'EADDRNOTALLOWED' });
  });

  it('the resolver is the one connected through (with --webhooks-allow-private the same answers are used)', async () => {
    receiver = await startWebhookReceiver();
    const { port, pathname } = new URL(receiver.url);
    const answer = await post(`http://hooks.example.com:${port}${pathname}`, answering('127.0.0.1'), true);
    expect(answer.status).toBe(200);
    expect(receiver.received).toHaveLength(1);
  });
});

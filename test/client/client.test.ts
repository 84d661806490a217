// vellum/client on its own: the signer (the same signatures as src/auth's signRequest, accepted by the
// verifier), base64, the requests it sends (checked through a recording fetch) and how it reports failures.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryReplayGuard, publicKeyOf, signRequest, verifySignatureHeader } from '../../src/auth/index.ts';
import {
  argumentsJson,
  base64FromBytes,
  bytesFromBase64,
  Client,
  ethPersonalSigner,
  signatureHeader,
  VellumError,
  type CollectionSchema,
} from '../../src/client/index.ts';

const KEY = `0x${'11'.repeat(32)}`;

interface ItemSchema extends CollectionSchema {
  name: 'Item';
  record: { id: string; price: number };
  constructorArgs: [id: string, price: number];
  functions: { setPrice: [price: number] };
  queryFields: { id: string; price: number };
}

interface Sent {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A client whose fetch records each request and answers with `answer`. */
function recordingClient(answer: () => Response, options: { signer?: boolean } = {}) {
  const sent: Sent[] = [];
  const client = new Client({
    baseURL: 'http://service.test/v0/',
    namespace: 'ns',
    ...(options.signer ? { signer: ethPersonalSigner(KEY) } : {}),
    fetch: async (input, init) => {
      sent.push({ method: init!.method!, url: new URL(String(input)), headers: init!.headers as Record<string, string>, body: init!.body as string | undefined });
      return answer();
    },
  });
  return { sent, items: client.collection<ItemSchema>('Item', { signReads: true }) };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('ethPersonalSigner', () => {
  it('signs exactly as signRequest does, and the verifier recovers the key', async () => {
    const body = '{"args":["a",1]}';
    const header = await signatureHeader(ethPersonalSigner(KEY), body, 1_700_000_000_000);
    expect(header).toBe(signRequest(KEY, body, 1_700_000_000_000));
    const now = Date.now();
    const fresh = await signatureHeader(ethPersonalSigner(KEY), body, now);
    const key = verifySignatureHeader(fresh!, body, { method: 'POST', replayGuard: new MemoryReplayGuard(), now: () => now });
    expect(key.toHex()).toBe(publicKeyOf(KEY).toHex());
  });

  it('answers { h, sig } as @polybase/client expects, for any message', () => {
    const signer = ethPersonalSigner(new Uint8Array(32).fill(7));
    fc.assert(
      fc.property(fc.string(), (data) => {
        const { h, sig } = signer(data) as { h: string; sig: string };
        return h === 'eth-personal-sign' && /^0x[0-9a-f]{128}(1b|1c)$/.test(sig);
      }),
      { numRuns: 50 },
    );
  });

  it("a signer's answer is checked before it goes into a header; null means unsigned, as in @polybase/client", async () => {
    expect(await signatureHeader(() => null, '')).toBeNull();
    const bad = [{ h: 'eth-personal-sign', sig: '0x12,v=1' }, { h: 'other', sig: '0x12' }, { h: 'eth-personal-sign', sig: '0x12', pk: 5 }, 'sig'];
    for (const answer of bad) {
      await expect(signatureHeader(() => answer as never, '')).rejects.toThrow(/^the signer answered .*; expected \{ h: 'eth-personal-sign'/);
    }
  });

  it('refuses a malformed key at once, saying what a key is', () => {
    expect(() => ethPersonalSigner('11'.repeat(32))).toThrow('a private key must be "0x" followed by 64 hex digits');
    expect(() => ethPersonalSigner(new Uint8Array(31))).toThrow('a private key must be 32 bytes');
    expect(() => ethPersonalSigner(`0x${'00'.repeat(32)}`)).toThrow('between 1 and the curve order');
  });
});

describe('bytes', () => {
  it('base64 round-trips any bytes and matches Node', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70_000 }), (bytes) => {
        const text = base64FromBytes(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(bytesFromBase64(text)).toEqual(bytes);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses text that is not padded standard base64', () => {
    for (const bad of ['AQL', 'AQ-6', 'A Q==', '====']) expect(() => bytesFromBase64(bad)).toThrow(TypeError);
  });

  it('arguments encode Uint8Arrays at any depth as base64', () => {
    expect(argumentsJson([new Uint8Array([1, 2]), { a: [new Uint8Array([255])] }, 'x'])).toBe('{"args":["AQI=",{"a":["/w=="]},"x"]}');
  });
});

describe('requests', () => {
  it('create and call POST the arguments, signed; reads of a non-public collection are signed too', async () => {
    const { sent, items } = recordingClient(() => json(200, { data: { id: 'a', price: 1 } }), { signer: true });
    expect(await items.create('a', 1)).toEqual({ id: 'a', price: 1 });
    await items.record('a/b').call('setPrice', 2);
    await items.get('a');
    expect(sent.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      'POST /v0/collections/ns%2FItem/records',
      'POST /v0/collections/ns%2FItem/records/a%2Fb/call/setPrice',
      'GET /v0/collections/ns%2FItem/records/a',
    ]);
    expect(sent[0]!.body).toBe('{"args":["a",1]}');
    for (const request of sent) expect(request.headers['X-Polybase-Signature']).toMatch(/^v=0,t=\d+,h=eth-personal-sign,sig=0x[0-9a-f]{130}$/);
    const { t } = Object.fromEntries(sent[2]!.headers['X-Polybase-Signature']!.split(',').map((p) => p.split('=')));
    // A read signs the empty body.
    expect(sent[2]!.headers['X-Polybase-Signature']).toBe(signRequest(KEY, '', Number(t)));
  });

  it('without a signer nothing is signed', async () => {
    const { sent, items } = recordingClient(() => json(200, { data: { id: 'a', price: 1 } }));
    await items.create('a', 1);
    expect(sent[0]!.headers['X-Polybase-Signature']).toBeUndefined();
  });

  it('a call answering { data: null } gives null (the record was deleted); a bare null is not an answer of the service', async () => {
    expect(await recordingClient(() => json(200, { data: null })).items.record('a').call('setPrice', 1)).toBeNull();
    await expect(recordingClient(() => json(200, null)).items.record('a').call('setPrice', 1)).rejects.toMatchObject({ reason: 'response/unexpected' });
  });

  it('a where on a field called __proto__ is a condition like any other', async () => {
    interface Odd extends CollectionSchema {
      name: 'Odd';
      record: { id: string };
      constructorArgs: [];
      functions: {};
      queryFields: { __proto__: string };
    }
    const sent: URL[] = [];
    const client = new Client({ baseURL: 'http://service.test/v0', namespace: 'ns', fetch: async (input) => (sent.push(new URL(String(input))), json(200, { data: [], cursor: {} })) });
    await client.collection<Odd>('Odd').where('__proto__', '==', 'x').where('__proto__', '<', 'y').get();
    expect(sent[0]!.searchParams.get('where')).toBe('{"__proto__":{"$eq":"x","$lt":"y"}}');
  });

  it('the query builder sends where and sort as the wire has them; conditions on one field combine', async () => {
    const { sent, items } = recordingClient(() => json(200, { data: [{ data: { id: 'a', price: 5 }, block: {} }], cursor: { before: 'b', after: 'c' } }, { 'X-Service-Timestamp': '12.5' }));
    const base = items.where('price', '>', 1);
    const page = await base.where('price', '<=', 10).sort('price', 'desc').sort('id').limit(5).get();
    expect(page).toEqual({ records: [{ id: 'a', price: 5 }], cursor: { before: 'b', after: 'c' }, timestamp: '12.5' });
    await base.after('c').get();
    const [first, second] = sent.map((s) => Object.fromEntries(s.url.searchParams));
    expect(first).toEqual({ where: '{"price":{"$gt":1,"$lte":10}}', sort: '[["price","desc"],["id","asc"]]', limit: '5' });
    // The earlier query is unchanged by what was built on it.
    expect(second).toEqual({ where: '{"price":{"$gt":1}}', after: 'c' });
  });

  it('an error envelope becomes a VellumError with its status, code, reason and message', async () => {
    const envelope = { error: { code: 'not-found', reason: 'record/not-found', message: 'record "x" was not found' } };
    const { items } = recordingClient(() => json(404, envelope));
    const error = await items.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VellumError);
    expect(error).toMatchObject({ status: 404, code: 'not-found', reason: 'record/not-found', message: 'record "x" was not found' });
  });

  it('an answer that is not the service’s is reported as such, never taken for a record', async () => {
    const html = recordingClient(() => new Response('<html>bad gateway</html>', { status: 502 }));
    await expect(html.items.get('x')).rejects.toMatchObject({ status: 502, reason: 'response/unexpected', message: expect.stringContaining('bad gateway') });
    const notJson = recordingClient(() => new Response('OK', { status: 200 }));
    await expect(notJson.items.get('x')).rejects.toMatchObject({ reason: 'response/unexpected', message: expect.stringContaining('not JSON') });
    const wrongShape = recordingClient(() => json(200, { records: [] }));
    await expect(wrongShape.items.list()).rejects.toMatchObject({ reason: 'response/unexpected', message: expect.stringContaining('not a list of records') });
  });

  it('a request that gets no answer is a VellumError with status 0', async () => {
    const client = new Client({ baseURL: 'http://service.test/v0', namespace: 'ns', fetch: () => Promise.reject(new TypeError('fetch failed')) });
    await expect(client.collection<ItemSchema>('Item').get('a')).rejects.toMatchObject({ status: 0, reason: 'request/failed', message: expect.stringContaining('fetch failed') });
  });

  it('bad options are refused when the client is made, naming the option', () => {
    expect(() => new Client({ baseURL: 'localhost:8080', namespace: 'ns' })).toThrow('baseURL must be an absolute http(s) URL');
    // A query or fragment would swallow the request's path: every request went to the API root itself.
    for (const baseURL of ['http://localhost:8080/v0?token=1', 'http://localhost:8080/v0#top', 'http://localhost:8080/v0?']) {
      expect(() => new Client({ baseURL, namespace: 'ns' })).toThrow(`baseURL must have no query or fragment (the client appends paths to it), got "${baseURL}"`);
    }
    expect(() => new Client({ baseURL: 'http://localhost:8080/v0', namespace: '' })).toThrow('namespace must be a non-empty string');
    expect(() => new Client({ baseURL: 'http://localhost:8080/v0', namespace: 'ns', signer: 'key' as never })).toThrow('signer must be a function');
  });
});

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
  publicKeyHex,
  randomPrivateKey,
  signatureHeader,
  VellumError,
  type CollectionSchema,
  type StreamEvent,
  type SubscribeOptions,
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

  it('signs every read of the hour with one signature an hour ahead, and each write at a millisecond of its own', async () => {
    const { sent, items } = recordingClient(() => json(200, { data: { id: 'a', price: 1 } }), { signer: true });
    const before = Date.now();
    await items.get('a');
    await items.get('b');
    await items.create('a', 1);
    await items.create('a', 1);
    const [read1, read2, write1, write2] = sent.map((s) => s.headers['X-Polybase-Signature']!);
    expect(read2).toBe(read1);
    const t = Number(/t=(\d+)/.exec(read1!)![1]);
    expect(t - before).toBeGreaterThanOrEqual(60 * 60 * 1000);
    expect(t - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    // The service accepts it: up to 65 minutes ahead.
    expect(verifySignatureHeader(read1!, '', { method: 'GET' }).toHex()).toBe(publicKeyOf(KEY).toHex());
    // Two writes of the same body, at once: two signatures, both accepted once.
    expect(write2).not.toBe(write1);
    const guard = new MemoryReplayGuard();
    for (const write of [write1!, write2!]) expect(verifySignatureHeader(write, '{"args":["a",1]}', { method: 'POST', replayGuard: guard }).toHex()).toBe(publicKeyOf(KEY).toHex());
  });

  it('a signer that declines a read is asked again at the next one (a wallet connected meanwhile)', async () => {
    let connected = false;
    const sent: (string | undefined)[] = [];
    const signer = ethPersonalSigner(KEY);
    const client = new Client({
      baseURL: 'http://service.test/v0',
      namespace: 'ns',
      signer: (data) => (connected ? signer(data) : null),
      fetch: async (_input, init) => (sent.push((init!.headers as Record<string, string>)['X-Polybase-Signature']), json(200, { data: { id: 'a', price: 1 } })),
    });
    const items = client.collection<ItemSchema>('Item', { signReads: true });
    await items.get('a');
    connected = true;
    await items.get('a');
    expect(sent[0]).toBeUndefined();
    expect(sent[1]).toMatch(/^v=0,t=\d+,h=eth-personal-sign,sig=0x/);
  });

  it('randomPrivateKey gives a new valid key each time', () => {
    const keys = new Set(Array.from({ length: 20 }, () => randomPrivateKey()));
    expect(keys.size).toBe(20);
    for (const key of keys) {
      expect(key).toMatch(/^0x[0-9a-f]{64}$/);
      expect(publicKeyHex(key)).toBe(publicKeyOf(key).toHex());
    }
  });

  it('a collection by its whole id, and a client without a namespace', async () => {
    const sent: string[] = [];
    const client = new Client({ baseURL: 'http://service.test/v0', fetch: async (input) => (sent.push(new URL(String(input)).pathname), json(200, { data: { id: 'app/Item', code: '' } })) });
    expect(() => client.collection<ItemSchema>('Item')).toThrow('this client has no namespace; give one, or use collectionById("<namespace>/<Name>")');
    const meta = client.collectionById('Collection');
    expect([meta.id, meta.name]).toEqual(['Collection', 'Collection']);
    expect((await meta.get('app/Item')).id).toBe('app/Item');
    const deep = client.collectionById('a/b/Item');
    expect([deep.id, deep.name]).toEqual(['a/b/Item', 'Item']);
    expect(sent).toEqual(['/v0/collections/Collection/records/app%2FItem']);
    expect(() => client.collectionById('')).toThrow('a collection id must be a non-empty string');
  });

  it('a request whose signal is aborted already is not sent, and rejects with its reason', async () => {
    const { sent, items } = recordingClient(() => json(200, { data: { id: 'a', price: 1 } }), { signer: true });
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(items.get('a', { signal: controller.signal })).rejects.toBe(reason);
    await expect(items.list({ signal: controller.signal })).rejects.toBe(reason);
    await expect(items.count(undefined, { signal: controller.signal })).rejects.toBe(reason);
    await expect(items.with({ signal: controller.signal }).create('a', 1)).rejects.toBe(reason);
    await expect(items.with({ signal: controller.signal }).record('a').call('setPrice', 2)).rejects.toBe(reason);
    await expect(items.query().get({ signal: controller.signal })).rejects.toBe(reason);
    await expect(items.query().count({ signal: controller.signal })).rejects.toBe(reason);
    expect(sent).toEqual([]);
    // A call's own signal and its collection's: either one ends it.
    const other = new AbortController();
    const both = items.with({ signal: other.signal });
    expect((await both.get('a')).id).toBe('a');
    await expect(both.get('a', { signal: controller.signal })).rejects.toBe(reason);
    other.abort();
    await expect(both.get('a')).rejects.toMatchObject({ name: 'AbortError' });
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

  it("calls the global fetch as a browser requires (not as a method of the client: Chromium's throws Illegal invocation)", async () => {
    const original = globalThis.fetch;
    globalThis.fetch = function (this: unknown) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation");
      return Promise.resolve(json(200, { data: { id: 'a', price: 1 } }));
    } as typeof fetch;
    try {
      const client = new Client({ baseURL: 'http://service.test/v0', namespace: 'ns' });
      expect(await client.collection<ItemSchema>('Item').get('a')).toEqual({ id: 'a', price: 1 });
    } finally {
      globalThis.fetch = original;
    }
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

describe('subscriptions', () => {
  type Event = StreamEvent<{ id: string; price: number }>;
  const encoder = new TextEncoder();

  /** An event-stream answer of these chunks; it stays open after them unless `end`. */
  const eventStream = (chunks: readonly string[], end = true) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
          if (end) controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream; charset=utf-8' } },
    );

  /** A subscription of `Item` whose fetch answers each connection with the next of `answers` (then stays open). */
  function subscribed(answers: Response[], options: SubscribeOptions = {}) {
    const sent: Sent[] = [];
    const events: Event[] = [];
    const errors: VellumError[] = [];
    const client = new Client({
      baseURL: 'http://service.test/v0',
      namespace: 'ns',
      fetch: async (input, init) => {
        sent.push({ method: init!.method!, url: new URL(String(input)), headers: init!.headers as Record<string, string>, body: undefined });
        return answers.shift() ?? eventStream([], false);
      },
    });
    const items = client.collection<ItemSchema>('Item');
    const subscription = items.query().where('price', '>', 1).subscribe((event) => events.push(event), { retryDelay: 1, onError: (e) => errors.push(e), ...options });
    return { sent, events, errors, subscription };
  }

  const until = async (check: () => boolean) => {
    for (let tries = 0; !check(); tries++) {
      if (tries === 200) throw new Error(`still waiting for ${check}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  const STREAM = [
    ': keep-alive\n\n',
    'event: put\ndata: {"id":"a","data":{"id":"a","price":2}}\n\n',
    'event: put\r\ndata: {"id":"b","data":{"id":"b","price":3}}\r\n\r\n',
    'event: ready\rdata: {"timestamp":"10.5"}\rid: 10.5\r\r',
    'event: later-kind\ndata: {"x":1}\n\n',
    'id: 11\n\n',
    'event: remove\ndata: {"id":"a"}\n\n',
    'event: reset\ndata: {}\n\n',
    'event: put\ndata:{"id":"c",\ndata: "data":{"id":"c","price":4}}\nid: 12\n\n',
  ].join('');

  it('parses the event stream however it is cut into chunks (LF, CRLF, CR, comments, ids alone, split data)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), STREAM.length];
        const chunks = points.slice(1).map((end, i) => STREAM.slice(points[i], end));
        const { events, subscription, errors, sent } = subscribed([eventStream(chunks, false)]);
        await until(() => events.length === 6);
        subscription.close();
        await subscription.done;
        expect(errors).toEqual([]);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.url.searchParams.get('stream')).toBe('1');
        expect(JSON.parse(sent[0]!.url.searchParams.get('where')!)).toEqual({ price: { $gt: 1 } });
        expect(events).toEqual([
          { type: 'put', id: 'a', record: { id: 'a', price: 2 } },
          { type: 'put', id: 'b', record: { id: 'b', price: 3 } },
          { type: 'ready', timestamp: '10.5' },
          { type: 'remove', id: 'a' },
          { type: 'reset' },
          // The last event of a commit carries its id: the commit's time.
          { type: 'put', id: 'c', record: { id: 'c', price: 4 }, timestamp: '12' },
        ]);
        expect([...subscription.records.keys()]).toEqual(['c']);
        expect(subscription.lastEventId).toBe('12');
      }),
      { numRuns: 40 },
    );
  });

  it('reconnects when the stream ends, with Last-Event-ID, and a first `since` as the query', async () => {
    const first = eventStream(['event: ready\ndata: {"timestamp":"7"}\nid: 7\n\n']);
    const retries: [number, unknown][] = [];
    const { sent, events, subscription } = subscribed([first], { since: '3', onRetry: (delay, cause) => retries.push([delay, cause]) });
    await until(() => sent.length === 2);
    subscription.close();
    await subscription.done;
    expect(events).toEqual([{ type: 'ready', timestamp: '7' }]);
    // The service ended the stream: no cause.
    expect(retries).toEqual([[1, undefined]]);
    expect(sent.map((s) => [s.url.searchParams.get('since'), s.headers['Last-Event-ID']])).toEqual([
      ['3', undefined],
      ['3', '7'],
    ]);
  });

  it('retries a 5xx of the service, saying why through onRetry, and doubles the wait', async () => {
    const unavailable = () => json(503, { error: { code: 'unavailable', reason: 'store/unavailable', message: 'the database is down' } });
    const retries: [number, unknown][] = [];
    const { sent, subscription, errors } = subscribed([unavailable(), unavailable()], { onRetry: (delay, cause) => retries.push([delay, cause]) });
    await until(() => sent.length === 3);
    subscription.close();
    await subscription.done;
    expect(errors).toEqual([]);
    expect(retries.map(([delay]) => delay)).toEqual([1, 2]);
    expect(retries[0]![1]).toMatchObject({ status: 503, reason: 'store/unavailable' });
  });

  it('ends for good, through onError, on a refusal, an error event, or an answer that is not an event stream', async () => {
    const cases: [Response, string][] = [
      [json(400, { error: { code: 'failed-precondition', reason: 'indexer/missing-index', message: 'add @index(price)' } }), 'indexer/missing-index'],
      [eventStream(['event: error\ndata: {"error":{"code":"invalid-argument","reason":"stream/too-many-records","message":"more than 1000"}}\n\n']), 'stream/too-many-records'],
      [eventStream(['event: put\ndata: {"id":"a"}\n\n']), 'response/unexpected'],
      [eventStream(['event: put\ndata: not json\n\n']), 'response/unexpected'],
      [json(200, { data: [] }), 'response/unexpected'],
    ];
    for (const [answer, reason] of cases) {
      const { sent, errors, subscription } = subscribed([answer]);
      await subscription.done;
      expect(subscription.closed).toBe(true);
      expect(errors.map((e) => e.reason)).toEqual([reason]);
      expect(sent).toHaveLength(1);
    }
  });

  it('a subscription of a collection that is not public is signed, on every connection', async () => {
    let connections = 0;
    const { sent, items } = recordingClient(() => (++connections === 1 ? eventStream(['event: ready\ndata: {"timestamp":"1"}\nid: 1\n\n']) : eventStream([], false)), { signer: true });
    const subscription = items.record('a').subscribe(() => {}, { retryDelay: 1 });
    await until(() => sent.length === 2);
    subscription.close();
    await subscription.done;
    expect(sent.map((s) => [s.url.pathname, s.url.searchParams.get('stream'), /^v=0,t=\d+,h=eth-personal-sign,sig=0x/.test(s.headers['X-Polybase-Signature'] ?? '')])).toEqual([
      ['/v0/collections/ns%2FItem/records/a', '1', true],
      ['/v0/collections/ns%2FItem/records/a', '1', true],
    ]);
    expect(sent[1]!.headers['Last-Event-ID']).toBe('1');
  });

  it("a listener's exception is thrown outside the stream, which goes on", async () => {
    const thrown: unknown[] = [];
    const catchUncaught = (error: unknown) => thrown.push(error);
    process.prependListener('uncaughtException', catchUncaught);
    try {
      const stream = eventStream(['event: put\ndata: {"id":"a","data":{"id":"a","price":2}}\n\n', 'event: ready\ndata: {"timestamp":"1"}\n\n'], false);
      const seen: string[] = [];
      const client = new Client({ baseURL: 'http://service.test/v0', namespace: 'ns', fetch: async () => stream });
      const subscription = client.collection<ItemSchema>('Item').subscribe((event) => {
        seen.push(event.type);
        if (event.type === 'put') throw new Error('a bug in the listener');
      });
      await until(() => seen.length === 2 && thrown.length === 1);
      subscription.close();
      await subscription.done;
      expect(seen).toEqual(['put', 'ready']);
      expect(subscription.records.has('a')).toBe(true);
      expect((thrown[0] as Error).message).toBe('a bug in the listener');
    } finally {
      process.off('uncaughtException', catchUncaught);
    }
  });

  it('a count or a subscription of a paged query is refused before anything is sent', () => {
    const { sent, items } = recordingClient(() => json(200, { count: 1 }));
    expect(() => items.query().limit(5).count()).toThrow('count: a query with limit has no count');
    expect(() => items.query().after('x').subscribe(() => {})).toThrow('subscribe: a query with after has no subscribe');
    expect(sent).toEqual([]);
  });

  it('a subscription with expand sends it, and its puts carry the expanded records', async () => {
    const put = 'event: put\ndata: {"id":"a","data":{"id":"a","price":2},"expand":{"seller":{"data":{"id":"s"}}}}\n\n';
    const { sent, events, subscription } = subscribed([eventStream([put, 'event: ready\ndata: {"timestamp":"1.5"}\nid: 1.5\n\n'], false)], { expand: ['seller'] });
    await until(() => events.length === 2);
    subscription.close();
    expect(sent[0]!.url.searchParams.get('expand')).toBe('seller');
    expect(events[0]).toEqual({ type: 'put', id: 'a', record: { id: 'a', price: 2 }, expand: { seller: { data: { id: 's' } } } });
  });

  it('a subscription of a query with a limit follows its window: limit goes with stream=1', async () => {
    const sent: URL[] = [];
    const client = new Client({
      baseURL: 'http://service.test/v0',
      namespace: 'ns',
      fetch: async (input) => {
        sent.push(new URL(String(input)));
        return eventStream([], false);
      },
    });
    const subscription = client.collection<ItemSchema>('Item').query().sort('price', 'desc').limit(3).subscribe(() => {});
    await until(() => sent.length === 1);
    subscription.close();
    expect(Object.fromEntries(sent[0]!.searchParams)).toEqual({ sort: '[["price","desc"]]', limit: '3', stream: '1' });
  });

  it('count sends count=true with the where, and checks the answer', async () => {
    const { sent, items } = recordingClient(() => json(200, { count: 3 }));
    expect(await items.or({ price: 1 }, { id: { $in: ['a', 'b'] } }).count()).toBe(3);
    expect(sent[0]!.url.searchParams.get('count')).toBe('true');
    expect(JSON.parse(sent[0]!.url.searchParams.get('where')!)).toEqual({ $or: [{ price: 1 }, { id: { $in: ['a', 'b'] } }] });
    const wrong = recordingClient(() => json(200, { count: '3' }));
    await expect(wrong.items.count()).rejects.toMatchObject({ reason: 'response/unexpected' });
  });

  it('aggregate sends sum, avg, min and max as field lists with the where, and checks the answer', async () => {
    const { sent, items } = recordingClient(() => json(200, { count: 2, sum: { price: 5 }, max: { price: 4 } }));
    const answer = await items.where('price', '>', 0).aggregate({ sum: ['price'], max: ['price'] });
    expect(answer).toEqual({ count: 2, sum: { price: 5 }, max: { price: 4 } });
    expect(Object.fromEntries(sent[0]!.url.searchParams)).toEqual({ where: '{"price":{"$gt":0}}', sum: 'price', max: 'price' });
    await items.aggregate({ avg: ['price', 'price'], min: ['price'] });
    expect(Object.fromEntries(sent[1]!.url.searchParams)).toEqual({ avg: 'price,price', min: 'price' });
    await expect(items.aggregate({})).rejects.toThrow('aggregate: name a field for at least one of sum, avg, min, max (or use count())');
    expect(() => items.query().limit(2).aggregate({ sum: ['price'] })).toThrow('aggregate: a query with limit has no aggregate');
    const wrong = recordingClient(() => json(200, { sum: { price: 1 } }));
    await expect(wrong.items.aggregate({ sum: ['price'] })).rejects.toMatchObject({ reason: 'response/unexpected' });
  });
});

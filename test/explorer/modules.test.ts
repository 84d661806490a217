// The explorer's browser modules that hold no DOM code, run in Node against the server's own pieces: the signing
// key against src/auth's verification, the index list against the store's layout, the diagnostics against the
// service's error message, the tokenizer on any text, and the Server-Sent Events reader on any chunking.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { diagnosticsOf } from '../../explorer/src/diagnostics.ts';
import { LiveList, type LiveMode } from '../../explorer/src/live.ts';
import { listValues } from '../../explorer/src/conditions.ts';
import { collectionInfo, indexLabel } from '../../explorer/src/schema.ts';
import { generateKey, keyFromText, shortKey } from '../../explorer/src/key.ts';
import { Client, signatureHeader } from '../../src/client/index.ts';
import { tokenize } from '../../explorer/src/tokenize.ts';
import { MemoryReplayGuard, publicKeyOf, verifySignatureHeader } from '../../src/auth/index.ts';
import { checkSchema, toStableAst } from '../../src/lang/index.ts';
import { checkCollectionSchema } from '../../src/service/index.ts';
import { layoutOf } from '../../src/store/index.ts';

const SCHEMAS = join(import.meta.dirname, '../../fixtures/schemas');

describe('the signing key', () => {
  it('signs through vellum/client headers the server verifies, as the key it shows', async () => {
    const key = generateKey();
    const body = JSON.stringify({ args: ['a', 1, { nested: 'ünïcödé' }] });
    const now = Date.now();
    const header = await signatureHeader(key.signer, body, now);
    const signer = verifySignatureHeader(header!, body, { method: 'POST', now, replayGuard: new MemoryReplayGuard() });
    expect(signer.toHex()).toBe(key.publicKeyHex);
    expect(publicKeyOf(key.privateKeyHex).toHex()).toBe(key.publicKeyHex);
    expect(generateKey().privateKeyHex).not.toBe(key.privateKeyHex);
  });

  it('reads a pasted key with or without 0x, or a key file\'s JSON, and says what is wrong with one that is not a key', () => {
    const hex = `0x${'ab'.repeat(32)}`;
    expect(keyFromText(`  ${hex}\n`).publicKeyHex).toBe(publicKeyOf(hex).toHex());
    expect(keyFromText(hex.slice(2)).privateKeyHex).toBe(hex);
    expect(keyFromText(hex.toUpperCase().replace('0X', '0x')).privateKeyHex).toBe(hex);
    expect(keyFromText(JSON.stringify({ privateKey: hex })).privateKeyHex).toBe(hex);
    expect(() => keyFromText('0x1234')).toThrow('a private key is 64 hex digits, optionally after "0x"; got 6 characters');
    expect(() => keyFromText(`0x${'zz'.repeat(32)}`)).toThrow('with some that are not hex');
    expect(() => keyFromText(`0x${'00'.repeat(32)}`)).toThrow('between 1 and the curve order minus 1');
    expect(() => keyFromText(`0x${'ff'.repeat(32)}`)).toThrow('between 1 and the curve order minus 1');
  });

  it('shows a key short', () => {
    expect(shortKey(`0x${'1a2b'.repeat(31)}9f0e`)).toBe('0x1a2b…9f0e');
    expect(shortKey('0x12')).toBe('0x12');
  });
});

describe('collectionInfo', () => {
  it('lists the indexes the store lays out, for every fixture schema', () => {
    let compared = 0;
    for (const file of readdirSync(SCHEMAS).filter((name) => name.endsWith('.polylang'))) {
      const text = readFileSync(join(SCHEMAS, file), 'utf8');
      const result = checkSchema(text, file);
      if (!result.program || !result.checked || result.diagnostics.some((d) => d.severity === 'error')) continue;
      const ast = JSON.stringify(toStableAst(result.program, result.source, 'app'));
      for (const collection of result.program.collections) {
        let layout;
        try {
          layout = layoutOf(collection);
        } catch {
          continue; // a layout the service refuses: never a collection the explorer shows
        }
        const info = collectionInfo(`app/${collection.name.name}`, ast);
        const expected = layout.indexes.map((index) => {
          const fields = index.fields.length > 1 && index.fields.at(-1)!.path === 'id' && index.fields.at(-1)!.direction === 'asc' ? index.fields.slice(0, -1) : index.fields;
          return fields.map((f) => `${f.path}${f.direction === 'desc' ? ' desc' : ''}`).join(', ');
        });
        expect(info.indexes.map(indexLabel).sort(), `${file} ${collection.name.name}`).toEqual([...new Set(expected)].sort());
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('reads fields, the constructor\'s and functions\' parameters with their types', () => {
    const text = readFileSync(join(SCHEMAS, 'blog.polylang'), 'utf8');
    const result = checkSchema(text, 'blog.polylang');
    const info = collectionInfo('app/Article', JSON.stringify(toStableAst(result.program!, result.source, 'app')));
    expect(info.constructorParameters.map((p) => p.name)).toEqual(['id', 'author', 'slug', 'title', 'body']);
    expect(info.constructorParameters[1]!.type).toEqual({ kind: 'foreignrecord', collection: 'Author' });
    expect(info.functions.map((f) => f.name)).not.toContain('constructor');
    expect(() => collectionInfo('app/Missing', JSON.stringify(toStableAst(result.program!, result.source, 'app')))).toThrow('does not define collection Missing');
  });

  it("reads the fields that grant read, which a private collection's list must pin", () => {
    const text = 'collection Team { id: string; constructor (id: string) { this.id = id; } }\n' +
      'collection Doc { id: string; @read owner: PublicKey; @delegate editors: PublicKey[]; @read team: Team; @call(owner) x: PublicKey; constructor (id: string) { this.id = id; this.owner = ctx.publicKey; this.editors = []; this.team = { collectionId: "", id: "" }; this.x = ctx.publicKey; } }';
    const result = checkSchema(text, 'doc.polylang');
    const info = collectionInfo('app/Doc', JSON.stringify(toStableAst(result.program!, result.source, 'app')));
    expect(info.publicRead).toBe(false);
    expect(info.readFields).toEqual([
      { name: 'owner', element: { kind: 'publickey' }, array: false },
      { name: 'editors', element: { kind: 'publickey' }, array: true },
      { name: 'team', element: { kind: 'foreignrecord', collection: 'Team' }, array: false },
    ]);
  });
});

describe('listValues', () => {
  const text = 'collection Task { id: string; title: string; priority: number; @index(title); @index(priority); constructor (id: string) { this.id = id; } }';
  const result = checkSchema(text, 'task.polylang');
  const info = collectionInfo('app/Task', JSON.stringify(toStableAst(result.program!, result.source, 'app')));
  const string = { kind: 'primitive', value: 'string' } as const;
  const number = { kind: 'primitive', value: 'number' } as const;

  it('reads a comma list or a JSON array by the field type, within the bound', () => {
    expect(listValues(info, 'title', string, 'a, b ,c', 30)).toEqual(['a', 'b', 'c']);
    expect(listValues(info, 'title', string, '["a,b", "c"]', 30)).toEqual(['a,b', 'c']);
    expect(listValues(info, 'priority', number, '[1, "2"]', 30)).toEqual([1, 2]);
    expect(() => listValues(info, 'priority', number, '1, 2, 3', 2)).toThrow('priority: at most 2 values, got 3');
  });

  it('refuses a null, array or object in a JSON array instead of searching for its text', () => {
    expect(() => listValues(info, 'title', string, '["a", null]', 30)).toThrow('title: expected texts, numbers or booleans in the array, got null');
    expect(() => listValues(info, 'title', string, '[{"x": 1}]', 30)).toThrow('got {"x":1}');
    expect(() => listValues(info, 'title', string, '[["a"]]', 30)).toThrow('got ["a"]');
  });
});

describe('diagnosticsOf', () => {
  it('reads the line, column, code and message of each error in the service\'s invalid-schema message', () => {
    const text = 'collection Task {\n  id: string;\n  n: number;\n  constructor (id: string) {\n    this.id = id;\n    this.n = "x";\n    this.m = 1;\n  }\n}\n';
    let message = '';
    try {
      checkCollectionSchema('app/Task', text);
    } catch (error) {
      message = (error as Error).message;
    }
    const result = checkSchema(text, 'app/Task');
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(diagnosticsOf(message)).toEqual(
      errors.map((d) => ({ ...result.source.position(d.span.start), code: d.code, message: d.message })).map(({ line, column, code, message }) => ({ line, column, code, message })),
    );
    expect(diagnosticsOf('code is missing definition for collection X')).toEqual([]);
  });
});

describe('tokenize', () => {
  it('gives back every character of any text, in order', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab1 \n"\'/*@\\.{}=_$é'.split('')), maxLength: 200 }), (text) => {
        expect(tokenize(text).map((t) => t.text).join('')).toBe(text);
      }),
    );
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      expect(tokenize(text).map((t) => t.text).join('')).toBe(text);
    }), { numRuns: 50 });
  });

  it('sorts a schema\'s words into kinds', () => {
    const kinds = tokenize('@public collection A { // note\n  n: number = "s" 12; }').filter((t) => t.kind !== 'space').map((t) => `${t.kind}:${t.text}`);
    expect(kinds).toEqual(['decorator:@public', 'keyword:collection', 'name:A', 'punctuation:{', 'comment:// note', 'name:n', 'punctuation::', 'type:number', 'punctuation:=', 'string:"s"', 'number:12', 'punctuation:;', 'punctuation:}']);
  });
});

describe('LiveList', () => {
  afterEach(() => vi.unstubAllGlobals());

  const tasks = () => new Client({ baseURL: 'http://explorer.test/v0' }).collectionById('app/Task', { signReads: true });
  const LIST = '{"data":[{"data":{"id":"a"}}],"cursor":{"before":null,"after":null}}';
  const listAnswer = () => new Response(LIST, { status: 200, headers: { 'X-Service-Timestamp': '20.5' } });
  /** A fetch that answers from `answer`, and leaves a request it has no answer for waiting until it is aborted. */
  function stubFetch(answer: (url: URL, n: number) => Response | undefined): URL[] {
    const urls: URL[] = [];
    vi.stubGlobal('fetch', (url: string | URL, init: RequestInit) => {
      const parsed = new URL(url, 'http://explorer.test');
      urls.push(parsed);
      const response = answer(parsed, urls.length);
      if (response) return Promise.resolve(response);
      return new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    });
    return urls;
  }

  it('follows the push stream from the list\'s timestamp and re-reads the page after each commit\'s events', async () => {
    const urls = stubFetch((url, n) => {
      if (n === 1) return new Response('event: ready\nid: 10\ndata: {"timestamp":"10"}\n\nevent: put\ndata: {"id":"a","data":{"id":"a"}}\n\nevent: remove\nid: 11\ndata: {"id":"b"}\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } });
      if (n === 2) return listAnswer();
      return undefined;
    });
    const answers: unknown[] = [];
    const modes: LiveMode[] = [];
    const live = new LiveList(tasks(), { where: { done: false }, sort: [['done', 'asc']], limit: 5 }, (answer) => answers.push(answer.records), () => {}, (mode) => modes.push(mode));
    live.start('9.5');
    await vi.waitFor(() => expect(answers).toEqual([[{ id: 'a' }]]));
    live.stop();
    expect(modes).toEqual(['stream']);
    const stream = urls[0]!.searchParams;
    expect(Object.fromEntries(stream)).toEqual({ stream: '1', since: '9.5', where: '{"done":false}', sort: '[["done","asc"]]' });
    // The page itself, with its limit: one re-read for the commit, none for the `ready` with nothing changed before it.
    expect(Object.fromEntries(urls[1]!.searchParams)).toEqual({ where: '{"done":false}', sort: '[["done","asc"]]', limit: '5' });
    expect(urls).toHaveLength(2);
  });

  it('says the stream was interrupted while the subscription reconnects, and that it follows again once it has', async () => {
    const open = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('event: ready\nid: 10\ndata: {"timestamp":"10"}\n\n')) });
    const urls = stubFetch((_url, n) => {
      if (n === 1) return new Response('event: ready\nid: 10\ndata: {"timestamp":"10"}\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } });
      if (n === 2) return new Response(open(), { status: 200, headers: { 'content-type': 'text/event-stream' } });
      return undefined;
    });
    const modes: LiveMode[] = [];
    const errors: string[] = [];
    const live = new LiveList(tasks(), {}, () => {}, (error) => errors.push((error as Error).message), (mode) => modes.push(mode));
    live.start('9.5');
    await vi.waitFor(() => expect(modes).toEqual(['stream', 'stream']), { timeout: 5000 });
    live.stop();
    expect(errors).toEqual(['the server ended the stream']);
    expect(urls).toHaveLength(2);
  });

  it('falls back to long-polls when the server refuses the stream for the query', async () => {
    const urls = stubFetch((url, n) => {
      if (n === 1) return new Response('{"error":{"code":"invalid-argument","reason":"stream/too-many-records","message":"more than 1000"}}', { status: 400 });
      if (n === 2) return listAnswer();
      return undefined;
    });
    const answers: unknown[] = [];
    const modes: [LiveMode, string | undefined][] = [];
    const errors: unknown[] = [];
    const live = new LiveList(tasks(), { limit: 5 }, (answer) => answers.push(answer.timestamp), (error) => errors.push(error), (mode, why) => modes.push([mode, why]));
    live.start('9.5');
    await vi.waitFor(() => expect(urls).toHaveLength(3));
    live.stop();
    expect(modes).toEqual([['stream', undefined], ['long-poll', 'stream/too-many-records']]);
    expect(answers).toEqual(['20.5']);
    expect(errors).toEqual([]);
    expect(Object.fromEntries(urls[1]!.searchParams)).toEqual({ limit: '5', since: '9.5', waitFor: '30s' });
    expect(urls[2]!.searchParams.get('since')).toBe('20.5');
  });
});

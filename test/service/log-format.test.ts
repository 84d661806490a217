// The request entry made by hand (src/service/request-line.ts): for any values, odd ones included (quotes,
// backslashes, control characters, unicode, lone surrogates in ids, routes, URLs, addresses and reasons), `logRequest`
// writes one line that JSON.parse reads back to the same fields pino itself writes for that entry; `jsonString` is
// JSON.stringify. Then the generated request ids, and BatchedFile (src/service/batched-file.ts), the destination that
// gathers lines into writes and formats request entries late: the same bytes as each line made at once.
import { spawnSync } from 'node:child_process';
import { createWriteStream, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BATCH_BYTES, BatchedFile, FLUSH_MS, PENDING_ENTRIES } from '../../src/service/batched-file.ts';
import { closeLogger, createLogger, LOGGED_URL_LENGTH, loggedUrl, logRequest, newRequestId, requestIdOf } from '../../src/service/log.ts';
import { hundredthsText, integerText, jsonString, recurringJsonInner, RECURRING_MEMO_SIZE, requestLine, type RequestEntry } from '../../src/service/request-line.ts';

/** Any text, weighted towards what JSON must escape. */
const oddText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '😀', '\ud800', '\udfff', 'a', '/', ' ') }),
  fc.string(),
);

const entry: fc.Arbitrary<RequestEntry> = fc.record({
  reqId: oddText,
  method: oddText,
  url: oddText,
  route: fc.option(oddText, { nil: undefined }),
  status: fc.integer({ min: 100, max: 599 }),
  ms: fc.double({ min: 0, max: 1e7, noNaN: true }),
  client: fc.option(oddText, { nil: undefined }),
  signer: fc.option(oddText, { nil: undefined }),
  reason: fc.option(oddText, { nil: undefined }),
});

/** An ordinary request's entry. */
const REQUEST: RequestEntry = { reqId: 'r1', method: 'GET', url: '/v0/collections/a/records/b', route: '/v0/collections/:collection/records/:id', status: 200, ms: 0.42, client: '127.0.0.1' };

function memoryPino(lines: string[]) {
  return pino({ base: undefined, formatters: { level: (label: string) => ({ level: label }) } }, { write: (line: string) => void lines.push(line) });
}

describe('jsonString', () => {
  it('is JSON.stringify for any text', () => {
    fc.assert(
      fc.property(oddText, (text) => {
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('recurringJsonInner', () => {
  /** Unmemoised: what goes between JSON.stringify's quotes. */
  const inner = (text: string) => JSON.stringify(text).slice(1, -1);

  it('is what jsonString quotes for any text, the first time and remembered, short and long', () => {
    const text = fc.oneof(oddText, fc.string({ unit: fc.constantFrom('"', '\\', '\u0001', 'a', ':'), minLength: 95, maxLength: 105 }));
    fc.assert(
      fc.property(text, (t) => {
        expect(recurringJsonInner(t)).toBe(inner(t));
        expect(recurringJsonInner(t)).toBe(inner(t));
        expect(`"${recurringJsonInner(t)}"`).toBe(jsonString(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('stays right through a flood of distinct texts that empties the memo', () => {
    const texts = Array.from({ length: RECURRING_MEMO_SIZE * 3 + 7 }, (_, i) => (i % 3 === 0 ? `10.0.${i >> 8}.${i & 255}` : i % 3 === 1 ? `"q${i}\n` : `\u0000${i}\\`));
    for (let pass = 0; pass < 2; pass++) for (const t of texts) expect(recurringJsonInner(t)).toBe(inner(t));
  });
});

describe('integerText', () => {
  it('is String(n) for any number, times in ms and the edges of its quick range included', () => {
    const number = fc.oneof(
      fc.integer({ min: 1_700_000_000_000, max: 4_000_000_000_000 }),
      fc.maxSafeInteger(),
      fc.double(),
      fc.tuple(fc.integer({ min: 0, max: 10 ** 9 }), fc.constantFrom(-1, 0, 1)).map(([millions, step]) => millions * 1e6 + step),
      fc.constantFrom(0, -0, 999_999, 1e6, 1e6 + 0.5, 1e15 - 1, 1e15, 2 ** 53, -1e6, Number.NaN, Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(number, (n) => {
        expect(integerText(n)).toBe(String(n));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('hundredthsText', () => {
  it('is String(Math.round(ms * 100) / 100) for any duration', () => {
    const duration = fc.oneof(
      fc.double({ min: 0, max: 1e7, noNaN: true }),
      fc.integer({ min: 0, max: 100_000 }).map((hundredths) => hundredths / 100),
      fc.double(),
      fc.constantFrom(0, -0, 0.004, 0.005, 0.995, 9.995, 2 ** 31 / 100 - 0.01, 2 ** 31 / 100, 1e15, -1, Number.NaN, Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(duration, (ms) => {
        expect(hundredthsText(ms)).toBe(String(Math.round(ms * 100) / 100));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('logRequest', () => {
  it('writes one line of valid JSON with the fields pino writes for the same entry, for any values', () => {
    fc.assert(
      fc.property(entry, (value) => {
        const lines: string[] = [];
        const logger = memoryPino(lines);
        logRequest(logger, value);
        const level = value.status === 503 ? 'warn' : value.status >= 500 ? 'error' : 'info';
        logger[level]({ ...value, ms: Math.round(value.ms * 100) / 100 }, 'request');
        expect(lines).toHaveLength(2);
        expect(lines[0]!.endsWith('\n')).toBe(true);
        expect(lines[0]!.slice(0, -1)).not.toContain('\n');
        const [ours, theirs] = lines.map((line) => {
          const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
          expect(time).toBeTypeOf('number');
          return rest;
        });
        expect(ours).toEqual(theirs);
        // The same fields in the same order as pino's line.
        expect(Object.keys(ours!)).toEqual(Object.keys(theirs!));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the time of a request line', () => {
  it('is the moment it is logged, lines in the same millisecond or not', async () => {
    const lines: string[] = [];
    const logger = memoryPino(lines);
    const times: [number, number][] = [];
    for (let i = 0; i < 50; i++) {
      const before = Date.now();
      logRequest(logger, { reqId: `r${i}`, method: 'GET', url: '/', route: '/', status: 200, ms: 1, client: '::1' });
      times.push([before, Date.now()]);
      if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    lines.forEach((line, i) => {
      const { time } = JSON.parse(line) as { time: number };
      expect(time).toBeGreaterThanOrEqual(times[i]![0]);
      expect(time).toBeLessThanOrEqual(times[i]![1]);
    });
  });
});

describe('request ids', () => {
  const request = (id?: string) => ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as unknown as IncomingMessage;

  it('takes a usable X-Request-Id and otherwise generates ids of UUID form, each new', () => {
    expect(requestIdOf(request('from-the-proxy'))).toBe('from-the-proxy');
    const generated = [requestIdOf(request()), requestIdOf(request('a b')), requestIdOf(request('x'.repeat(201))), requestIdOf(request('é')), ...Array.from({ length: 1000 }, newRequestId)];
    for (const id of generated) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(generated).size).toBe(generated.length);
  });
});

describe('loggedUrl', () => {
  it('is the URL, or its first LOGGED_URL_LENGTH characters and an ellipsis, for any text', () => {
    const long = fc.tuple(oddText, fc.integer({ min: LOGGED_URL_LENGTH - 2, max: 3 * LOGGED_URL_LENGTH })).map(([text, length]) => text.padEnd(length, text || 'u'));
    fc.assert(
      fc.property(fc.oneof(oddText, long), (url) => {
        expect(loggedUrl(url)).toBe(url.length > LOGGED_URL_LENGTH ? `${url.slice(0, LOGGED_URL_LENGTH)}…` : url);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps no long URL alive through its cut', () => {
    // 2,000 URLs of 16 KiB (Node's most for a request's head), each dropped once cut: a cut that is a slice of its
    // URL (V8's sliced string) keeps all 32 MB on the heap.
    const log = fileURLToPath(new URL('../../src/service/log.ts', import.meta.url));
    const program = `
      const { loggedUrl } = await import(${JSON.stringify(log)});
      gc();
      const before = process.memoryUsage().heapUsed;
      const kept = [];
      for (let i = 0; i < 2000; i++) {
        const url = Buffer.alloc(16 * 1024, 'u');
        url.write('/' + i);
        kept.push(loggedUrl(url.toString('latin1')));
      }
      gc();
      console.log(JSON.stringify({ grown: process.memoryUsage().heapUsed - before, lengths: [...new Set(kept.map((url) => url.length))] }));`;
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', program], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const { grown, lengths } = JSON.parse(child.stdout) as { grown: number; lengths: number[] };
    expect(lengths).toEqual([LOGGED_URL_LENGTH + 1]);
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('BatchedFile', () => {
  let dir: string | undefined;
  afterEach(() => {
    vi.useRealTimers();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function file() {
    dir = mkdtempSync(join(tmpdir(), 'vellum-batched-'));
    const path = join(dir, 'log');
    return { destination: new BatchedFile(openSync(path, 'w')), read: Object.assign(() => readFileSync(path, 'utf8'), { path }) };
  }

  it('writes gathered lines FLUSH_MS after the first, in order, as UTF-8', () => {
    vi.useFakeTimers();
    const { destination, read } = file();
    destination.write('{"a":"é😀"}\n');
    destination.write('{"b":2}\n');
    expect(read()).toBe('');
    vi.advanceTimersByTime(FLUSH_MS - 1);
    expect(read()).toBe('');
    vi.advanceTimersByTime(1);
    expect(read()).toBe('{"a":"é😀"}\n{"b":2}\n');
    destination.write('{"c":3}\n');
    vi.advanceTimersByTime(FLUSH_MS);
    expect(read()).toBe('{"a":"é😀"}\n{"b":2}\n{"c":3}\n');
  });

  it('writes at once when the buffer would overflow, lines longer than it whole, and what is left on flush', () => {
    vi.useFakeTimers();
    const { destination, read } = file();
    const line = `${'x'.repeat(999)}\n`;
    const lines = Math.ceil((2 * BATCH_BYTES) / line.length);
    for (let i = 0; i < lines; i++) destination.write(line);
    // Written before the timer, whole lines in order, never more than the buffer holds left behind.
    const written = read();
    expect(written).toBe(line.repeat(written.length / line.length));
    expect(lines * line.length - written.length).toBeLessThanOrEqual(BATCH_BYTES);
    const long = `${'é'.repeat(BATCH_BYTES)}\n`;
    destination.write(long);
    expect(read()).toBe(line.repeat(lines) + long);
    destination.write('{"last":true}\n');
    const flushed = vi.fn();
    destination.flush(flushed);
    expect(flushed).toHaveBeenCalledOnce();
    expect(read()).toBe(`${line.repeat(lines)}${long}{"last":true}\n`);
  });

  it('writes what is gathered when the process ends on an uncaught error', () => {
    dir = mkdtempSync(join(tmpdir(), 'vellum-batched-'));
    const path = join(dir, 'log');
    const log = fileURLToPath(new URL('../../src/service/batched-file.ts', import.meta.url));
    const program = `
      const { BatchedFile } = await import(${JSON.stringify(log)});
      const destination = new BatchedFile((await import('node:fs')).openSync(${JSON.stringify(path)}, 'w'));
      destination.write('{"a":1}\\n');
      destination.writeRequest(${JSON.stringify(REQUEST)}, 1700000000123);
      destination.write('{"b":2}\\n');
      destination.writeRequest(${JSON.stringify(REQUEST)}, 1700000000124);
      setTimeout(() => { throw new Error('crash'); }, 1);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { encoding: 'utf8' });
    expect(child.stderr).toContain('crash');
    expect(child.status).toBe(1);
    expect(readFileSync(path, 'utf8')).toBe(`{"a":1}\n${requestLine(REQUEST, 1700000000123)}{"b":2}\n${requestLine(REQUEST, 1700000000124)}`);
  });

  it('writes request entries as the very bytes of requestLine, in order among other lines, for any entries', () => {
    // Entries and plain lines in any order; runs past PENDING_ENTRIES and the buffer's size, long lines included.
    const request = fc.tuple(entry, fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 })).map(([value, time]) => ({ value, time }));
    const item = fc.oneof(
      { weight: 8, arbitrary: request },
      { weight: 1, arbitrary: oddText.map((text) => ({ line: `${JSON.stringify(text)}\n` })) },
      { weight: 1, arbitrary: fc.constant({ line: `"${'é'.repeat(BATCH_BYTES / 2)}"\n` }) },
    );
    const items = fc.oneof(
      fc.array(item, { maxLength: 20 }),
      fc.array(item, { minLength: PENDING_ENTRIES, maxLength: 3 * PENDING_ENTRIES }),
      fc.array(request, { minLength: PENDING_ENTRIES - 1, maxLength: 2 * PENDING_ENTRIES + 1 }),
    );
    vi.useFakeTimers();
    dir = mkdtempSync(join(tmpdir(), 'vellum-batched-'));
    const path = join(dir, 'log');
    // Appending, so that the file emptied before each run is written from its start.
    const fd = openSync(path, 'a');
    const destination = new BatchedFile(fd);
    fc.assert(
      fc.property(items, (list) => {
        ftruncateSync(fd, 0);
        let expected = '';
        for (const one of list) {
          if ('line' in one) {
            destination.write(one.line);
            expected += one.line;
          } else {
            destination.writeRequest(one.value, one.time);
            expected += requestLine(one.value, one.time);
          }
        }
        destination.flushSync();
        expect(readFileSync(path).equals(Buffer.from(expected))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('formats a flood of request entries before the timer: no more than PENDING_ENTRIES and a buffer wait', () => {
    vi.useFakeTimers();
    const { destination, read } = file();
    const long = { ...REQUEST, url: `/${'u'.repeat(250)}` };
    const line = requestLine(long, 1_700_000_000_000);
    const count = 20 * PENDING_ENTRIES;
    for (let i = 0; i < count; i++) destination.writeRequest(long, 1_700_000_000_000);
    const written = read();
    expect(written).toBe(line.repeat(written.length / line.length));
    expect(count * line.length - written.length).toBeLessThanOrEqual(BATCH_BYTES + PENDING_ENTRIES * line.length);
    vi.advanceTimersByTime(FLUSH_MS);
    expect(read()).toBe(line.repeat(count));
  });

  it('on close writes what is pending, stops listening for the exit, and writes later lines at once', () => {
    vi.useFakeTimers();
    const listening = process.listenerCount('exit');
    const { destination, read } = file();
    expect(process.listenerCount('exit')).toBe(listening + 1);
    destination.write('{"a":1}\n');
    destination.writeRequest(REQUEST, 1_700_000_000_000);
    destination.close();
    expect(process.listenerCount('exit')).toBe(listening);
    expect(read()).toBe(`{"a":1}\n${requestLine(REQUEST, 1_700_000_000_000)}`);
    destination.writeRequest(REQUEST, 1_700_000_000_001);
    destination.write('{"b":2}\n');
    expect(read()).toBe(`{"a":1}\n${requestLine(REQUEST, 1_700_000_000_000)}${requestLine(REQUEST, 1_700_000_000_001)}{"b":2}\n`);
  });

  it('leaves no exit listener behind for loggers made and closed', () => {
    const { read } = file();
    const listening = process.listenerCount('exit');
    for (let i = 0; i < 20; i++) {
      const logger = createLogger({ format: 'json', destination: { fd: openSync(read.path, 'a') } as unknown as NodeJS.WritableStream });
      logRequest(logger, { ...REQUEST, reqId: `r${i}` });
      closeLogger(logger);
    }
    expect(process.listenerCount('exit')).toBe(listening);
    expect(read().split('\n').slice(0, -1).map((line) => (JSON.parse(line) as { reqId: string }).reqId)).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
  });

  it('writes through a file stream given as destination, opened yet or not, its lines all there when it ends', async () => {
    // An fs.WriteStream has no fd until its file is open, and closes it when it ends: its lines go through its write.
    dir = mkdtempSync(join(tmpdir(), 'vellum-batched-'));
    for (const opened of [false, true]) {
      const path = join(dir, `log-${opened}`);
      const stream = createWriteStream(path);
      if (opened) await once(stream, 'open');
      const logger = createLogger({ format: 'json', destination: stream });
      logger.info('first');
      logRequest(logger, REQUEST);
      logger.info('last');
      stream.end();
      await once(stream, 'close');
      const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1).map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(lines).toEqual(['first', 'request', 'last']);
    }
  });

  it("keeps a request line's time the moment it was logged through the logger, not when it is formatted", async () => {
    const { read } = file();
    const logger = createLogger({ format: 'json', destination: { fd: openSync(read.path, 'w') } as unknown as NodeJS.WritableStream });
    const times: [number, number][] = [];
    for (let i = 0; i < 30; i++) {
      const before = Date.now();
      logRequest(logger, { ...REQUEST, reqId: `r${i}` });
      times.push([before, Date.now()]);
      if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await new Promise((resolve) => logger.flush(resolve));
    const lines = read().split('\n').slice(0, -1);
    expect(lines).toHaveLength(30);
    lines.forEach((line, i) => {
      const parsed = JSON.parse(line) as { time: number; reqId: string };
      expect(parsed.reqId).toBe(`r${i}`);
      expect(parsed.time).toBeGreaterThanOrEqual(times[i]![0]);
      expect(parsed.time).toBeLessThanOrEqual(times[i]![1]);
      expect(`${line}\n`).toBe(requestLine({ ...REQUEST, reqId: `r${i}` }, parsed.time));
    });
  });
});

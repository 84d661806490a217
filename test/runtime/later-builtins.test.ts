// The built-ins of Polylang after 0.6 that Vellum runs: assert, log, hashSHA256, hashBlake3.
import { blake3 } from '@noble/hashes/blake3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/runtime/index.ts';
import { errors } from '../lang/check-helpers.ts';
import { body, evaluate, fails, load, ok } from './helpers.ts';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('assert', () => {
  it('does nothing when the condition holds, and stops the call with the message when not', () => {
    const collection = body("assert(n > 0, 'n must be positive'); return n;", { params: 'n: number' });
    expect(ok(execute(collection, 'f', { id: 'r' }, [2])).returnValue).toBe(2);
    expect(fails(execute(collection, 'f', { id: 'r' }, [0]))).toEqual(
      expect.objectContaining({ reason: 'function/collection-error', message: 'collection function error: n must be positive' }),
    );
    expect(fails(execute(body('assert(false);'), 'f', { id: 'r' }, [])).message).toBe('collection function error: assertion failed');
  });

  it('changes nothing when it fails', () => {
    const counter = load(`collection C { id: string; n: number; constructor (id: string) { this.id = id; this.n = 0; } bump() { this.n += 1; assert(this.n < 2, 'too many'); } }`, 'C');
    const record = ok(execute(counter, 'constructor', null, ['c'])).record!;
    const once = ok(execute(counter, 'bump', record, [])).record!;
    expect(fails(execute(counter, 'bump', once, [])).message).toMatch(/too many/);
    expect(once).toEqual({ id: 'c', n: 1 });
  });

  it('is checked: the message is a string', () => {
    expect(errors('collection T { id: string; f() { assert(true, 5); } }').map((e) => e.code)).toEqual(['V3007']);
  });
});

describe('log', () => {
  const logger = load(
    `collection L { id: string; n: number; constructor (id: string) { this.id = id; this.n = 0; }
  add(k: number) { log('adding', k, [k, 2], { a: true }); this.n += k; log('now', this.n); }
  fail() { log('before'); error('stop'); } }`,
    'L',
  );
  const record = ok(execute(logger, 'constructor', null, ['l'])).record!;

  it('returns the lines beside the result, never in the record', () => {
    const transition = ok(execute(logger, 'add', record, [3]));
    expect(transition.logs).toEqual(['adding 3 [3,2] {"a":true}', 'now 3']);
    expect(transition.record).toEqual({ id: 'l', n: 3 });
    expect('logs' in ok(execute(logger, 'constructor', null, ['m']))).toBe(false);
  });

  it('keeps what was logged before a failure', () => {
    const result = execute(logger, 'fail', record, []);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.logs).toEqual(['before']);
  });

  it('pays gas per character and is capped', () => {
    const gasOf = (text: string) => ok(execute(body('log(s);', { params: 's: string' }), 'f', { id: 'r' }, [text])).gasUsed;
    expect(gasOf('x'.repeat(1600)) - gasOf('')).toBe(100);
    const flood = body("let s = 'xxxxxxxxxxxxxxxx'; while (true) { log(s); }");
    expect(fails(execute(flood, 'f', { id: 'r' }, [], {}, { gas: 1e9, maxStringLength: 1000 }))).toMatchObject({
      reason: 'function/limit-exceeded',
      message: expect.stringMatching(/^log too long/),
    });
  });
});

describe('hashSHA256 and hashBlake3', () => {
  it('hash bytes, and strings as UTF-8, to 32 bytes', () => {
    const text = 'héllo';
    const utf8 = new TextEncoder().encode(text);
    expect(evaluate('return hashSHA256(s);', [text], { params: 's: string' })).toBe(base64(sha256(utf8)));
    expect(evaluate('return hashBlake3(s);', [text], { params: 's: string' })).toBe(base64(blake3(utf8)));
    expect(evaluate('return hashSHA256(b);', [base64(new Uint8Array([1, 2, 3]))], { params: 'b: bytes' })).toBe(base64(sha256(new Uint8Array([1, 2, 3]))));
    expect(evaluate('return hashBlake3(b);', [''], { params: 'b: bytes' })).toBe(base64(blake3(new Uint8Array(0))));
  });

  it('the checker takes bytes or a string only; other values fail at run time too', () => {
    expect(errors('collection T { id: string; f(n: number) { let h = hashSHA256(n); } }')).toMatchObject([
      { code: 'V3007', message: 'argument 1 of hashSHA256 must be bytes or string, found number' },
    ]);
    expect(fails(execute(body('return hashBlake3(n);', { params: 'n: number' }), 'f', { id: 'r' }, [1])).message).toMatch(/hashBlake3 takes bytes or a string/);
  });

  it('a digest is bytes: it may be stored in a bytes field', () => {
    expect(errors("collection T { id: string; h: bytes; f(s: string) { this.h = hashSHA256(s); } }")).toEqual([]);
  });
});

// Public-key literals in `@call(...)` (Polylang after 0.6): `@call(eth#0x…)` lets the holder of that key call.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { parse, print } from '../../src/lang/index.ts';
import { canCall } from '../../src/runtime/index.ts';
import { publicKeyFrom } from '../../src/runtime/values.ts';
import { load } from '../runtime/helpers.ts';
import { reported } from './check-helpers.ts';
import { stripSpans } from './strip-spans.ts';

const secret = new Uint8Array(32).fill(5);
const uncompressed = Buffer.from(secp256k1.getPublicKey(secret, false)).toString('hex');
const compressed = Buffer.from(secp256k1.getPublicKey(secret, true)).toString('hex');
const caller = publicKeyFrom(`0x${uncompressed.slice(2)}`);
const stranger = publicKeyFrom(`0x${Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(6), false)).toString('hex').slice(2)}`);

const vault = (key: string) => `@read
collection Vault {
  id: string;
  owner: PublicKey;
  constructor (id: string) { this.id = id; this.owner = ctx.publicKey; }
  @call(owner, eth#0x${key})
  open () {}
}`;

describe('key literals', () => {
  it.each([
    ['64 bytes (x‖y)', uncompressed.slice(2)],
    ['65 bytes (04 first)', uncompressed],
    ['33 bytes (compressed)', compressed],
  ])('%s: the holder of the key may call, beside the fields named', async (_form, key) => {
    expect(reported(vault(key))).toEqual([]);
    const collection = load(vault(key), 'Vault');
    const record = { id: 'v', owner: stranger.toJwk() as never };
    const loader = async () => null;
    expect((await canCall(collection, 'open', record, caller, loader)).allowed).toBe(true);
    expect((await canCall(collection, 'open', record, stranger, loader)).allowed).toBe(true); // the owner field
    const other = publicKeyFrom(`0x${Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(7), false)).toString('hex').slice(2)}`);
    expect((await canCall(collection, 'open', record, other, loader)).allowed).toBe(false);
    expect((await canCall(collection, 'open', record, undefined, loader)).allowed).toBe(false);
  });

  it('prints back as written', () => {
    const { program } = parse(vault(compressed));
    expect(print(program!)).toContain(`@call(owner eth#0x${compressed})`);
    expect(stripSpans(parse(print(program!)).program)).toEqual(stripSpans(program));
  });

  it("gives the compiler's length errors, and refuses what is not a key", () => {
    const message = (key: string) => reported(vault(key).replace(`eth#0x${key}`, key.includes('#') ? key : `eth#0x${key}`))[0]?.message;
    expect(message('ab'.repeat(20))).toBe(
      'invalid public key literal: you provided an address, where a public key is expected: give the key (64 bytes x‖y, 65 bytes starting 04, or 33 compressed)',
    );
    expect(message('ab'.repeat(32))).toBe('invalid public key literal: invalid secp256k1 xy bytes length: 32. A key should be 65, 64 or 33 bytes long.');
    expect(message('12345')).toMatch(/^invalid public key literal: invalid hex literal: 0x12345/);
    expect(message(`falcon#0x${'ab'.repeat(64)}`)).toBe('invalid public key literal: unknown key kind "falcon#": only eth# (secp256k1) keys are supported');
    expect(message('00'.repeat(64))).toBe('invalid public key literal: the bytes are not a point of secp256k1 (a mistyped key?)');
    expect(reported(vault('00'.repeat(64)))[0]!.code).toBe('V1012');
  });

  it('is for a function\'s @call only: a collection decorator takes no arguments', () => {
    expect(reported(`@call(eth#0x${compressed})\ncollection T { id: string; }`)[0]!.code).toBe(reported('@call(x)\ncollection T { id: string; }')[0]!.code);
  });

  it('a 0.6 schema never lexes one: eth stays a name', () => {
    expect(reported('collection T { id: string; eth: PublicKey; @call(eth) f() {} }')).toEqual([]);
  });
});

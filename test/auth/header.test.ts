// The header grammar: strict, and every failure names the part that is wrong.
import { describe, expect, it } from 'vitest';
import { AuthError, parseSignatureHeader, readSignatureHeader, type AuthErrorKind, type HeaderPart } from '../../src/auth/index.ts';
import { refusal } from './helpers.ts';

const SIG = '0xdbe0c61d0948ebaf621389487b13cc9cae03675fbe891bdb041627ef754b332a26ccaee33fbad811e062d831a7e67e2fdcd1495408ce76ea37f1a7abd46be8e81c';
const PK = '0x0317db94fd7c4bddcd38c02f286dd84ce411cdacf78136be82632455800e768a5e';
const PK_UNCOMPRESSED =
  '0x0417db94fd7c4bddcd38c02f286dd84ce411cdacf78136be82632455800e768a5e0a8b86cafe950df598ef08acc2ee2412884569edc7f0865585eeee797d5bda8d';
const VALID = `v=0,t=1700000000000,h=eth-personal-sign,sig=${SIG}`;
const failure = (header: string) => refusal(() => parseSignatureHeader(header));


describe('parseSignatureHeader', () => {
  it('reads t, the signature and no pk', () => {
    const header = parseSignatureHeader(VALID);
    expect(header.t).toBe(1700000000000);
    expect(header.signature.recoveryId).toBe(1);
    expect(Buffer.from(header.signature.compact).toString('hex')).toBe(SIG.slice(2, 130));
    expect(header.publicKey).toBeUndefined();
  });

  it('accepts the pairs in any order, with a compressed or uncompressed pk', () => {
    const a = parseSignatureHeader(`pk=${PK},sig=${SIG},h=eth-personal-sign,t=1700000000000,v=0`);
    expect(a.t).toBe(1700000000000);
    expect(Buffer.from(a.publicKey!).toString('hex')).toBe(PK.slice(2));
    const b = parseSignatureHeader(`${VALID},pk=${PK_UNCOMPRESSED}`);
    expect(b.publicKey!.length).toBe(65);
  });

  it('accepts upper-case hex digits', () => {
    expect(parseSignatureHeader(`v=0,t=1,h=eth-personal-sign,sig=0x${SIG.slice(2).toUpperCase()}`).t).toBe(1);
  });

  const cases: Array<[string, string, AuthErrorKind, HeaderPart, string]> = [
    ['empty header', '', 'malformed-header', 'header', 'missing = in key=value pair ""'],
    ['pair without =', `${VALID},garbage`, 'malformed-header', 'header', 'missing = in key=value pair "garbage"'],
    ['trailing comma', `${VALID},`, 'malformed-header', 'header', 'missing = in key=value pair'],
    ['unknown key', `${VALID},zz=1`, 'unknown-key', 'header', 'unknown key "zz"'],
    ['space after a comma', VALID.replace(',t=', ', t='), 'unknown-key', 'header', 'unknown key " t"'],
    ['upper-case key', VALID.replace('sig=', 'SIG='), 'unknown-key', 'header', 'unknown key "SIG"'],
    ['duplicate t', `${VALID},t=1700000000000`, 'duplicate-key', 't', 'duplicate key "t"'],
    ['duplicate sig', `${VALID},sig=${SIG}`, 'duplicate-key', 'sig', 'duplicate key "sig"'],
    ['missing sig', 'v=0,t=1,h=eth-personal-sign', 'missing-part', 'sig', 'missing signature'],
    ['missing t', `v=0,h=eth-personal-sign,sig=${SIG}`, 'missing-part', 't', 'missing timestamp'],
    ['missing v', `t=1,h=eth-personal-sign,sig=${SIG}`, 'missing-part', 'v', 'missing version'],
    ['missing h', `v=0,t=1,sig=${SIG}`, 'missing-part', 'h', 'missing hash'],
    ['version 1', VALID.replace('v=0', 'v=1'), 'unsupported-version', 'v', 'unsupported version "1"'],
    ['empty version', VALID.replace('v=0', 'v='), 'unsupported-version', 'v', 'unsupported version ""'],
    ['another hash', VALID.replace('eth-personal-sign', 'sha256'), 'unsupported-hash', 'h', 'unsupported hash "sha256"'],
    ['non-integer t', VALID.replace('t=1700000000000', 't=12a'), 'invalid-timestamp', 't', 'failed to decode timestamp "12a"'],
    ['empty t', VALID.replace('t=1700000000000', 't='), 'invalid-timestamp', 't', 'failed to decode timestamp ""'],
    ['negative t', VALID.replace('t=1700000000000', 't=-1'), 'invalid-timestamp', 't', 'failed to decode timestamp'],
    ['fractional t', VALID.replace('t=1700000000000', 't=1.5'), 'invalid-timestamp', 't', 'failed to decode timestamp'],
    ['t with a plus sign', VALID.replace('t=1700000000000', 't=+1'), 'invalid-timestamp', 't', 'failed to decode timestamp'],
    ['t with leading zeros', VALID.replace('t=1700000000000', 't=01700000000000'), 'invalid-timestamp', 't', 'without leading zeros'],
    ['t in exponent form', VALID.replace('t=1700000000000', 't=1e12'), 'invalid-timestamp', 't', 'failed to decode timestamp'],
    ['t beyond 2^53', VALID.replace('t=1700000000000', 't=9007199254740993'), 'invalid-timestamp', 't', 'failed to decode timestamp'],
    ['huge t', VALID.replace('t=1700000000000', `t=${'9'.repeat(400)}`), 'invalid-timestamp', 't', 'failed to decode timestamp'],
    ['sig without 0x', VALID.replace('sig=0x', 'sig='), 'invalid-hex', 'sig', 'signature (sig) must start with 0x'],
    ['sig with 0X', VALID.replace('sig=0x', 'sig=0X'), 'invalid-hex', 'sig', 'must start with 0x'],
    ['sig with a doubled 0x', VALID.replace('sig=0x', 'sig=0x0x'), 'invalid-hex', 'sig', 'signature (sig) must be hex digits after 0x'],
    ['sig with a non-hex digit', VALID.replace('sig=0xd', 'sig=0xg'), 'invalid-hex', 'sig', 'must be hex digits'],
    ['sig with an odd digit count', VALID.slice(0, -1), 'invalid-hex', 'sig', 'odd number of hex digits (129)'],
    ['empty sig', VALID.replace(SIG, ''), 'invalid-hex', 'sig', 'must start with 0x'],
    ['sig of 64 bytes', VALID.slice(0, -2), 'invalid-length', 'sig', 'signature must be 65 bytes'],
    ['sig of 66 bytes', `${VALID}00`, 'invalid-length', 'sig', 'signature must be 65 bytes (r, s and the recovery byte), got 66'],
    ['pk without 0x', `${VALID},pk=${PK.slice(2)}`, 'invalid-hex', 'pk', 'public key (pk) must start with 0x'],
    ['pk with non-hex', `${VALID},pk=0xzz`, 'invalid-hex', 'pk', 'public key (pk) must be hex digits'],
    ['pk of 64 bytes (the hex form)', `${VALID},pk=0x${PK_UNCOMPRESSED.slice(4)}`, 'invalid-length', 'pk', 'must be 33 bytes (compressed) or 65 bytes (uncompressed), got 64'],
    ['empty pk', `${VALID},pk=0x`, 'invalid-length', 'pk', 'got 0'],
    ['compressed pk with prefix 04', `${VALID},pk=0x04${PK.slice(4)}`, 'invalid-public-key', 'pk', 'must start with 02 or 03'],
    ['uncompressed pk with prefix 02', `${VALID},pk=0x02${PK_UNCOMPRESSED.slice(4)}`, 'invalid-public-key', 'pk', 'must start with 04'],
    ['too long a header', `${VALID},pk=0x${'0'.repeat(2000)}`, 'malformed-header', 'header', 'at most 1024'],
  ];

  it.each(cases)('refuses %s', (_name, header, kind, part, message) => {
    const error = failure(header);
    expect(error.kind).toBe(kind);
    expect(error.part).toBe(part);
    expect(error.message).toContain(message);
    expect(error.reason).toBe('auth/invalid-signature');
  });

  it('checks the required parts in the order sig, t, v, h (as Polybase does)', () => {
    expect(failure('pk=0x00').message).toContain('missing signature');
    expect(failure(`sig=${SIG}`).message).toContain('missing timestamp');
  });

  it('quotes untrusted text short and escaped', () => {
    const error = failure(`${'\n'.repeat(3)}${'k'.repeat(500)}=1`);
    expect(error.message.length).toBeLessThan(120);
    expect(error.message).toContain('"\\n\\n\\nkkk');
  });
});

describe('readSignatureHeader', () => {
  it('reads X-Service-Signature or its alias X-Polybase-Signature', () => {
    expect(readSignatureHeader({ 'x-service-signature': VALID })).toBe(VALID);
    expect(readSignatureHeader({ 'x-polybase-signature': VALID })).toBe(VALID);
    expect(readSignatureHeader({ 'x-service-signature': VALID, 'x-polybase-signature': VALID })).toBe(VALID);
    expect(readSignatureHeader({ 'x-service-signature': [VALID] })).toBe(VALID);
  });

  it('is undefined on an unsigned request', () => {
    expect(readSignatureHeader({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('refuses two different signatures, or one header sent twice', () => {
    const other = VALID.replace('t=1700000000000', 't=1');
    expect(() => readSignatureHeader({ 'x-service-signature': VALID, 'x-polybase-signature': other })).toThrow(
      /both present with different values/,
    );
    expect(() => readSignatureHeader({ 'x-polybase-signature': [VALID, other] })).toThrow(/must be sent once, got 2 values/);
    expect(() => readSignatureHeader({ 'x-polybase-signature': [VALID, other] })).toThrow(AuthError);
  });
});

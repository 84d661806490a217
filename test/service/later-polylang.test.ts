// Polylang after 0.6 through the record service: a contract schema is stored with a 0.6 stable AST,
// sized-number overflow is a 400 that changes nothing, and log(...) lines go to the debug log only.
import { entriesOf, memoryLogger } from '../support/log.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer, type TestServer } from './support.ts';

const SCHEMA = `
@public
contract Meter {
  id: string;
  reading: u32;
  contract: string;

  constructor (id: string, contract: string) {
    this.id = id;
    this.reading = 0;
    this.contract = contract;
  }

  add (k: u32) {
    log('add', k, 'to', this.reading);
    this.reading += k;
  }
}
`;

let s: TestServer;
const lines: string[] = [];
beforeAll(async () => {
  s = await startTestServer({ debug: true, logger: memoryLogger(lines, 'debug') });
  expect((await s.createCollection('later/Meter', SCHEMA)).status).toBe(200);
  expect((await s.create('later/Meter', ['m', 'c-1'])).status).toBe(200);
});
afterAll(() => s.close());

describe('Polylang after 0.6 over HTTP', () => {
  it('a contract is stored as a collection in the stable AST the Polybase client reads', async () => {
    const meta = await s.record('Collection', 'later/Meter');
    const ast = JSON.parse(meta.json.data.ast as string);
    expect(ast[0]).toMatchObject({ kind: 'collection', name: 'Meter' });
    expect(ast[0].attributes[1]).toMatchObject({ kind: 'property', name: 'reading', type: { kind: 'primitive', value: 'u32' } });
  });

  it('overflow is 400 function/arithmetic-error and changes nothing; an argument out of range is invalid-argument', async () => {
    expect((await s.call('later/Meter', 'm', 'add', [4294967295])).status).toBe(200);
    const overflow = await s.call('later/Meter', 'm', 'add', [1]);
    expect(overflow.status).toBe(400);
    expect(errorOf(overflow)).toMatchObject({ code: 'failed-precondition', reason: 'function/arithmetic-error' });
    expect(errorOf(overflow)!.message).toMatch(/^u32 overflow: 4294967295 \+ 1 = 4294967296/);
    expect((await s.record('later/Meter', 'm')).json.data).toEqual({ id: 'm', reading: 4294967295, contract: 'c-1' });
    const negative = await s.call('later/Meter', 'm', 'add', [-1]);
    expect(errorOf(negative)).toMatchObject({ code: 'invalid-argument', reason: 'function/invalid-args' });
  });

  it('what a function logs goes to the debug log, never into the record', async () => {
    const messages = entriesOf(lines).filter((entry) => entry.level === 'debug').map((entry) => entry.msg);
    expect(messages).toContain('log later/Meter.add: add 4294967295 to 0');
    expect(messages).toContain('log later/Meter.add: add 1 to 4294967295');
    expect(JSON.stringify((await s.record('later/Meter', 'm')).json)).not.toContain('add');
  });
});

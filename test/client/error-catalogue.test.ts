// The client's error codes and reasons are the service's: its lists (src/client/errors.ts) must be the service's
// catalogue (src/service/errors.ts, ERROR_CATALOGUE), checked here as values and as types, so neither can change
// without the other. An envelope with a code or reason the client does not know is still reported whole.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Client, SERVICE_ERROR_CODES, SERVICE_ERROR_REASONS, VellumError, type CollectionSchema, type ServiceErrorCode, type ServiceErrorReason } from '../../src/client/index.ts';
import { ERROR_CATALOGUE, type ErrorCode, type ErrorReason } from '../../src/service/index.ts';

describe('the error catalogue', () => {
  it("the client's codes and reasons are the service's, each once", () => {
    expect([...SERVICE_ERROR_CODES].sort()).toEqual([...ERROR_CATALOGUE.codes].sort());
    expect([...SERVICE_ERROR_REASONS].sort()).toEqual([...ERROR_CATALOGUE.reasons].sort());
    expect(new Set(SERVICE_ERROR_REASONS).size).toBe(SERVICE_ERROR_REASONS.length);
    expect(new Set(SERVICE_ERROR_CODES).size).toBe(SERVICE_ERROR_CODES.length);
  });

  it('and so are their types', () => {
    expectTypeOf<ServiceErrorCode>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ServiceErrorReason>().toEqualTypeOf<ErrorReason>();
    expectTypeOf<VellumError['code']>().toEqualTypeOf<ErrorCode | 'unknown'>();
    expectTypeOf<VellumError['reason']>().toEqualTypeOf<ErrorReason | 'request/failed' | 'response/unexpected'>();
  });
});

describe('an envelope the client does not know', () => {
  interface Item extends CollectionSchema {
    name: 'Item';
    record: { id: string };
    constructorArgs: [id: string];
    functions: {};
    queryFields: { id: string };
  }
  const answering = (body: unknown) =>
    new Client({ baseURL: 'http://service.test/v0', namespace: 'ns', fetch: async () => new Response(JSON.stringify(body), { status: 400 }) }).collection<Item>('Item');

  it('is response/unexpected, with the code, reason and message it had in the message', async () => {
    const error = await answering({ error: { code: 'invalid-argument', reason: 'admin/not-an-admin', message: 'only an admin key may' } }).get('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VellumError);
    expect(error).toMatchObject({ status: 400, code: 'unknown', reason: 'response/unexpected' });
    expect((error as Error).message).toBe('the service answered 400 invalid-argument admin/not-an-admin, which this client does not know: only an admin key may');
    const code = await answering({ error: { code: 'teapot', reason: 'record/not-found', message: 'x' } }).get('a').catch((e: unknown) => e);
    expect(code).toMatchObject({ code: 'unknown', reason: 'response/unexpected' });
  });

  it('a known one keeps its code and reason as sent', async () => {
    const error = await answering({ error: { code: 'invalid-argument', reason: 'indexer/missing-index', message: 'add @index(a, b)' } }).get('a').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'invalid-argument', reason: 'indexer/missing-index', message: 'add @index(a, b)' });
  });
});

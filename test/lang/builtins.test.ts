import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  arity,
  builtinById,
  builtins,
  lookupGlobal,
  lookupMethod,
  lookupNamespace,
  renderBuiltinsTable,
  signatureOf,
} from '../../src/lang/builtins.ts';
import { arrayOf, mapOf, namespaceType, numberType, publicKeyType, stringType, typeToString } from '../../src/lang/types.ts';

const DOC = new URL('../../docs/builtins.md', import.meta.url);
const BEGIN = '<!-- builtins:begin -->';
const END = '<!-- builtins:end -->';

describe('built-ins catalogue', () => {
  it('has unique ids of the form receiver.name', () => {
    const ids = builtins.map((b) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const b of builtins) expect(b.id).toBe(`${b.receiver}.${b.name}`);
  });

  it('gives every entry a gas cost with a unit whenever it has a per-unit cost', () => {
    for (const b of builtins) {
      expect(b.gas.base, b.id).toBeGreaterThan(0);
      expect(b.gas.perUnit === undefined, b.id).toBe(b.gas.unit === undefined);
      if (b.gas.perUnit !== undefined) expect(b.gas.perUnit, b.id).toBeGreaterThan(0);
      expect(b.description.length, b.id).toBeGreaterThan(0);
    }
  });

  it('puts rest parameters last and optional parameters after required ones', () => {
    for (const b of builtins) {
      const restIndex = b.parameters.findIndex((p) => p.rest);
      if (restIndex >= 0) expect(restIndex, b.id).toBe(b.parameters.length - 1);
      let seenOptional = false;
      for (const p of b.parameters) {
        if (p.optional) seenOptional = true;
        else if (!p.rest) expect(seenOptional, `${b.id} ${p.name}`).toBe(false);
      }
      if (b.kind === 'property' || b.kind === 'constant') expect(b.parameters, b.id).toEqual([]);
    }
  });

  it('has no nondeterministic entries', () => {
    const names = builtins.map((b) => b.id);
    expect(names).not.toContain('Math.random');
    expect(names.some((n) => n.startsWith('Date.'))).toBe(false);
  });

  it('contains what app developers expect', () => {
    for (const id of [
      'string.length', 'string.toUpperCase', 'string.split', 'string.replaceAll', 'string.padStart', 'string.at',
      'array.length', 'array.push', 'array.pop', 'array.splice', 'array.join', 'array.includes', 'array.reverse',
      'publicKey.toHex', 'Math.floor', 'Math.max', 'Math.PI', 'Math.E', 'Object.keys', 'Object.values',
      'global.error', 'global.selfdestruct', 'global.parseInt', 'global.isFinite', 'ctx.publicKey',
    ]) {
      expect(builtinById(id), id).toBeDefined();
    }
    expect(builtinById('array.push')!.mutates).toBe(true);
    expect(builtinById('array.slice')!.mutates).toBe(false);
  });

  it('looks up methods by receiver type and instantiates nothing by itself', () => {
    expect(lookupMethod(stringType, 'toUpperCase')?.id).toBe('string.toUpperCase');
    expect(lookupMethod(arrayOf(numberType), 'push')?.id).toBe('array.push');
    expect(lookupMethod(publicKeyType, 'toHex')?.id).toBe('publicKey.toHex');
    expect(lookupMethod(namespaceType('Math'), 'floor')?.id).toBe('Math.floor');
    expect(lookupMethod(mapOf(stringType, numberType), 'keys')).toBeUndefined();
    expect(lookupMethod(stringType, 'nope')).toBeUndefined();
    expect(lookupGlobal('error')?.returns.kind).toBe('never');
    expect(lookupGlobal('toUpperCase')).toBeUndefined();
    expect(lookupNamespace('$auth')).toBe('ctx');
    expect(arity(builtinById('array.splice')!)).toEqual({ min: 1, max: Infinity });
    expect(arity(builtinById('string.slice')!)).toEqual({ min: 0, max: 2 });
  });

  it('renders signatures as people write them', () => {
    expect(signatureOf(builtinById('array.push')!)).toBe('T[].push(...items: T[]): number');
    expect(signatureOf(builtinById('string.length')!)).toBe('string.length: number');
    expect(signatureOf(builtinById('global.parseInt')!)).toBe('parseInt(text: string, radix?: number): number');
    expect(signatureOf(builtinById('Object.values')!)).toBe('Object.values(map: map<K, V>): V[]');
    expect(typeToString(builtinById('array.splice')!.returns)).toBe('T[]');
  });

  it('renders a Markdown table with one row per entry', () => {
    const table = renderBuiltinsTable();
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toBe('| id | signature | gas | mutates | description |');
    expect(lines[1]).toBe('| --- | --- | --- | --- | --- |');
    expect(lines).toHaveLength(builtins.length + 2);
    expect(table).toContain('| `string.toUpperCase` | `string.toUpperCase(): string` | 5 + 1 per element or character of the receiver |');
    for (const line of lines) expect(line.split(/(?<!\\)\|/).length).toBe(7);
  });

  it('docs/builtins.md embeds the current table (UPDATE_DOCS=1 regenerates it)', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const expected = `${BEGIN}\n${renderBuiltinsTable()}${END}`;
    const updated = doc.slice(0, start) + expected + doc.slice(end + END.length);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, updated);
    else expect(doc.slice(start, end + END.length)).toBe(expected);
  });
});

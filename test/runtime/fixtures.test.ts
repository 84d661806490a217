// Every fixture schema that checks clean, run end to end: each constructor with generated arguments
// (signed and unsigned), then each function on the records it created. Everything ends in a
// transition or a typed error, records come out in wire form, and the same call gives the same result.
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSchema, hasErrors } from '../../src/lang/index.ts';
import { compileCollection, execute, type WireRecord } from '../../src/runtime/index.ts';
import { argumentsOf, testKeys } from '../../src/testing/index.ts';

const dir = new URL('../../fixtures/schemas/', import.meta.url);
const createdPerFile = new Map<string, number>();
const files = readdirSync(dir).filter((f) => f.endsWith('.polylang')).sort();

describe('fixture schemas run end to end', () => {
  for (const file of files) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    const checked = checkSchema(text, file);
    if (!checked.program || hasErrors(checked.diagnostics)) continue;
    it(file, () => {
      let created = 0;
      for (const node of checked.program!.collections) {
        const collection = compileCollection(checked, node.name.name, { collectionId: `ns/${node.name.name}` });
        if (!collection.functions.has('constructor')) continue;
        const samples = fc.sample(argumentsOf(collection, 'constructor', { maxLength: 3 }), { numRuns: 8, seed: 42 });
        const records: WireRecord[] = [];
        samples.forEach((args, i) => {
          const publicKey = i % 2 === 0 ? testKeys()[0] : undefined;
          const result = execute(collection, 'constructor', null, args, { publicKey }, { gas: 200_000 });
          expect(execute(collection, 'constructor', null, args, { publicKey }, { gas: 200_000 })).toEqual(result);
          if (result.ok && result.transition.record) {
            expect(JSON.parse(JSON.stringify(result.transition.record))).toEqual(result.transition.record);
            records.push(result.transition.record);
            created++;
          } else if (!result.ok) {
            expect(result.error.message.length).toBeGreaterThan(0);
          }
        });
        for (const name of collection.functions.keys()) {
          if (name === 'constructor') continue;
          const calls = fc.sample(argumentsOf(collection, name, { maxLength: 3 }), { numRuns: 4, seed: 7 });
          for (const record of records.slice(0, 3)) {
            for (const args of calls) {
              const result = execute(collection, name, record, args, { publicKey: testKeys()[0] }, { gas: 200_000 });
              if (result.ok) expect(result.transition.record === null || typeof result.transition.record.id === 'string').toBe(true);
              else expect(result.error.reason).toMatch(/^(function|record|constructor)\//);
            }
          }
        }
      }
      createdPerFile.set(file, created);
    });
  }

  it('generated arguments create records in most fixtures', () => {
    const withRecords = [...createdPerFile.values()].filter((n) => n > 0).length;
    expect(withRecords).toBeGreaterThan(createdPerFile.size / 2);
  });
});

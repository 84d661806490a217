// Differential test: Vellum's stable AST against the one `@polybase/polylang@0.6.0` produces for the
// same text, compared as serialised JSON so that key order counts too (Polybase stores the string).

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/parse.ts';
import { print } from '../../src/lang/printer.ts';
import { SourceFile } from '../../src/lang/source.ts';
import { toStableAst } from '../../src/lang/stable-ast.ts';

// The package is a CommonJS bundle around a WASM module; its `parse` resolves to
// `[programAst, stableAst]` and rejects with an Error carrying Polylang's message.
const polylang = createRequire(import.meta.url)('@polybase/polylang') as {
  parse(code: string, namespace: string): Promise<[unknown, unknown]>;
};

async function polylangStableAst(code: string, namespace: string): Promise<unknown> {
  const [, stable] = await polylang.parse(code, namespace);
  return stable;
}

function vellumStableAst(code: string, namespace: string): unknown {
  const { program, diagnostics } = parse(code, 'schema.polylang');
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return toStableAst(program!, new SourceFile('schema.polylang', code), namespace);
}

// Only Polylang 0.6 syntax here (no Vellum extensions): the reference must accept every schema.
const schemas: Record<string, string> = {
  'empty program': '',
  'only comments': '// nothing here\n/* at all */\n',
  'basic collection': `
@public
collection Person {
  id: string;
  name?: string;
  age?: number;

  @index(name);
  @index(age);

  constructor (id: string, name: string, age: number) {
    this.id = id;
    this.name = name;
    this.age = age;
  }

  setAge (age: number) {
    this.age = age;
  }

  remove () {
    selfdestruct();
  }
}
`,
  'every field type': `
collection Everything {
  id: string;
  n: number;
  b: boolean;
  raw: bytes;
  key: PublicKey;
  user: User;
  optionalKey?: PublicKey;
  strings: string[];
  numbers: number[];
  flags: boolean[];
  blobs: bytes[];
  keys: PublicKey[];
  users: User[];
  arr: array[];
}
`,
  maps: `
collection Maps {
  id: string;
  accountToBalance: map<string, number>;
  balanceCounts: map<number, number>;
  assetBalances: map<string, map<string, number>>;
  lists: map<string, string[]>;
  keyed: map<PublicKey, string>;
  objects: map<string, { a: string; b?: number; }>;
  refs: map<string, User>;
}
`,
  'nested objects with decorators inside': `
collection Nested {
  id: string;
  info: { name: string; more?: { deep: boolean; @read owner: PublicKey; arr: string[]; }; };
  empty: {};
  opt?: { x: number; };
  @index(info.name);
  @index(info.more.deep, [opt.x, desc]);
}
`,
  'field decorators': `
collection Account {
  id: string;
  balance: number;
  @read owner: PublicKey;
  @read @delegate pk: PublicKey;
  @read(x) reader: PublicKey;
  @call(owner manager) @read managers: Manager[];
  @delegate user: User;
  @public plain: string;
}
`,
  'collection decorators': `
@read
@call
collection A { id: string; }

@public collection B { id: string; }

@read(owner) @call(owner admin)
collection C { id: string; owner: PublicKey; }
`,
  'index forms': `
collection Indexed {
  id: string;
  name: string;
  age: number;
  place: string;
  asc: string;
  desc: number;
  @index();
  @index(id);
  @index(name, [age, desc], place);
  @index([name, asc], [place, desc]);
  @index(asc, [desc, desc]);
  @index([id, asc]);
}
`,
  'parameters and return types': `
collection Calls {
  id: string;
  function constructor (id: string, n?: number, flag?: boolean, raw?: bytes) {
    this.id = id;
  }
  transfer (b: record, amount: number): number {
    this.balance -= amount;
    b.balance += amount;
    return this.balance;
  }
  other (o: OtherAccountCol, keys: PublicKey[], users: User[], m: map<string, number>): string {
    return o.id;
  }
  key (): PublicKey { return ctx.publicKey; }
  list (): string[] { return []; }
  dict (): map<string, boolean> { return {}; }
  obj (): { a: string; b?: number; } { return { a: 'x' }; }
  ref (): User { return this.user; }
  bin (): bytes { return this.raw; }
  optionalFirst (a?: string, b: number) { }
}
`,
  'function decorators and return value order': `
collection Guarded {
  id: string;
  @read owner: PublicKey;
  @read manager: PublicKey;
  @call(manager) reset () { this.balance = 0; }
  @call(owner manager) @read @public @delegate
  function both (x: number): number { return x; }
  @call
  open () {}
  @call() emptyArgs (a: string): boolean { return true; }
}
`,
  'comments around and inside bodies': `
// The owner of things
collection Commented {
  /* block before a field */ id: string; // trailing
  // before a function
  constructor (id: string) {
    // leading comment dropped
    /* and this one */ this.id = id; // inline kept? no: after the last statement
    // trailing comment dropped
  }
  inner () {
    let a = 1; // kept: between statements
    /* also kept */
    a = a + 1;
  }
  onlyComment () { // just a comment
  }
  onlyBlock () { /* x */ }
  spaces () {      }
  empty () {}
  braces () { if (a) { /* } */ b = '}'; } }
}
`,
  'several collections': `
@public
collection User {
  id: string;
  name: string;
  @delegate pk: PublicKey;
  constructor (id: string, name: string) { this.id = id; this.name = name; this.pk = ctx.publicKey; }
}

@read
collection Org {
  id: string;
  owner: User;
  @call(owner) onlyOwner () {}
}

collection Message { id: string; @read chat: Chat; }
`,
  'statements and strings': `
@public
collection Chat {
  id: string;
  @delegate @read members: NFT[];
  counts: map<string, number>;
  @call(members)
  addMember (nft: NFT) {
    if (this.members.length > 5) {
      error('Too many people in the room');
    } else {
      this.members.push(nft);
    }
    let i = 0;
    while (i < 10) { i += 1; if (i == 3) { break; } }
    for (let j = 0; j < 3; j += 1) { this.counts["key"] = j; }
    if (!ctx.publicKey) throw error("it's not signed");
    if (this.counts[nft.id]) { this.counts[nft.id] += 1; } else { this.counts[nft.id] = 1; }
    (this.id) = 'x';
    return Math.floor(2 ** 3 ** 2 / 4) - ~1;
  }
}
`,
  'items in any order and unicode text': `
collection Mixed {
  f () { return 'żółw 🐢'; }
  @index(name);
  id: string;
  g () { /* ünïcödé */ x = "a"; /* é */ y = 'b'; }
  name: string;
}
`,
  'windows line endings': 'collection Crlf {\r\n  id: string;\r\n  f () {\r\n    // c\r\n    this.id = id;\r\n    return 1;\r\n  }\r\n}\r\n',
  'tabs and odd spacing': '@public\tcollection   Tabs{id:string;@read\towner:PublicKey;f(a:string):number{return  1 ;}}',
  'names with dollar and underscore': `
collection $A {
  _id: string;
  id: string;
  $b: number;
  in: string;
  of: number;
  function _f ($x: number) { return $x; }
}
`,
};

describe('toStableAst matches @polybase/polylang@0.6.0', () => {
  for (const [title, code] of Object.entries(schemas)) {
    it(title, async () => {
      const expected = await polylangStableAst(code, 'ns');
      const actual = vellumStableAst(code, 'ns');
      expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
    });
  }

  it('uses the namespace it is given', async () => {
    const code = 'collection A { id: string; }';
    const namespace = 'pk/0x1234/app';
    expect(JSON.stringify(vellumStableAst(code, namespace))).toBe(JSON.stringify(await polylangStableAst(code, namespace)));
  });

  it('matches on every fixture schema that Polylang 0.6 accepts', async () => {
    const directory = new URL('../../fixtures/schemas/', import.meta.url);
    const files = readdirSync(directory).filter((name) => name.endsWith('.polylang'));
    let compared = 0;
    for (const name of files) {
      const code = readFileSync(new URL(name, directory), 'utf8');
      const expected = await polylangStableAst(code, 'ns').catch(() => undefined);
      if (expected === undefined) continue; // a Vellum-only or deliberately odd schema
      expect(JSON.stringify(vellumStableAst(code, 'ns')), name).toBe(JSON.stringify(expected));
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('still matches after formatting: printed Polylang schemas stay Polylang schemas', async () => {
    const withoutCode = (stable: unknown): string =>
      JSON.stringify(stable, (key, value: unknown) => (key === 'code' ? undefined : value));
    const directory = new URL('../../fixtures/schemas/', import.meta.url);
    const texts = [
      ...Object.values(schemas),
      ...readdirSync(directory)
        .filter((name) => name.endsWith('.polylang'))
        .map((name) => readFileSync(new URL(name, directory), 'utf8')),
    ];
    for (const code of texts) {
      const original = await polylangStableAst(code, 'ns');
      const printed = print(parse(code).program!);
      const reprinted = await polylangStableAst(printed, 'ns').catch((error: Error) => {
        throw new Error(`Polylang 0.6 rejects the printed schema: ${error.message}\n${printed}`);
      });
      expect(withoutCode(reprinted)).toBe(withoutCode(original));
    }
  });

  it('accepts the source as a plain string', () => {
    const code = 'collection A { f () { x = 1; } }';
    const { program } = parse(code);
    expect(toStableAst(program!, code, 'ns')).toEqual(toStableAst(program!, new SourceFile('s', code), 'ns'));
  });
});

// What the generator writes, and what it refuses: the baseline of one whole generated file, the query fields and
// read signing it derives from a schema, its errors; and `vellum generate client` as a user runs it.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateClient } from '../../src/codegen/index.ts';
import { moduleFolder, ROOT } from './support.ts';
import { VELLUM } from '../support/cli.ts';

const SHOP = 'fixtures/codegen/shop.polylang';
const BASELINE = 'fixtures/codegen/shop.client.ts';
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const generate = (...sources: { file: string; text: string }[]) => generateClient(sources);

describe('generateClient', () => {
  it(`writes ${BASELINE} for ${SHOP} (set VELLUM_ACCEPT_BASELINES=1 to accept a deliberate change)`, () => {
    const { code, errors } = generate({ file: SHOP, text: read(SHOP) });
    expect(errors).toEqual([]);
    if (process.env.VELLUM_ACCEPT_BASELINES === '1') writeFileSync(join(ROOT, BASELINE), code!);
    expect(code).toBe(read(BASELINE));
  });

  it('a sized numeric type is its client alias (a number documented with its range)', () => {
    const { code, errors } = generate({
      file: 'sized.polylang',
      text: 'collection Meter { id: string; reading: u32; history: i64[]; constructor (id: string, reading: u32) { this.id = id; this.reading = reading; this.history = []; } }',
    });
    expect(errors).toEqual([]);
    expect(code).toContain('reading: vellum.U32;');
    expect(code).toContain('history: vellum.I64[];');
    expect(code).toMatch(/reading: vellum\.U32\]/);
  });

  it('leaves a migration (@migrate) out: nobody calls it', () => {
    const { code, errors } = generate({
      file: 'migrated.polylang',
      text: 'collection Person { id: string; first: string; constructor (id: string) { this.id = id; this.first = ""; } rename (first: string) { this.first = first; } @migrate splitName (old: { name: string; }) { this.first = old.name; } }',
    });
    expect(errors).toEqual([]);
    expect(code).toContain('rename');
    expect(code).not.toContain('splitName');
  });

  it('is deterministic: the same schemas give the same bytes', () => {
    const sources = ['fixtures/schemas/blog.polylang', 'fixtures/schemas/maps.polylang'].map((file) => ({ file, text: read(file) }));
    expect(generateClient(sources).code).toBe(generateClient(sources.map((s) => ({ ...s }))).code);
  });

  it('query fields are id, the top-level indexable fields and the @index paths (an array only with one), each with its filter type', () => {
    const { code } = generate({
      file: 'q.polylang',
      text: `@public
collection Q {
  id: string;
  n: number;
  b: boolean;
  pk: PublicKey;
  other: Q;
  list: string[];
  nums: number[];
  data: bytes;
  m: map<string, number>;
  o: { inner: { deep: string; }; };
  @index(o.inner.deep, [n, desc]);
  @index(nums);
  constructor (id: string) { this.id = id; }
}`,
    });
    const queryFields = /queryFields: \{\n([^}]*)\};/.exec(code!)![1];
    expect(queryFields!.trim().split('\n').map((l) => l.trim())).toEqual([
      'id: string;',
      'n: number;',
      'b: boolean;',
      'pk: vellum.PublicKeyInput;',
      "other: vellum.RecordReference<'Q'>;",
      "'o.inner.deep': string;",
      'nums: number[];',
    ]);
  });

  it('signs the reads of a collection unless it is @public or @read', () => {
    const { code } = generate({
      file: 'r.polylang',
      text: `collection Private { id: string; constructor (id: string) { this.id = id; } }
@read collection Readable { id: string; constructor (id: string) { this.id = id; } }
@public collection Open { id: string; constructor (id: string) { this.id = id; } }`,
    });
    expect(code).toContain("Private: client.collection<PrivateSchema>('Private', { signReads: true }),");
    expect(code).toContain("Readable: client.collection<ReadableSchema>('Readable', { signReads: false }),");
    expect(code).toContain("Open: client.collection<OpenSchema>('Open', { signReads: false }),");
  });

  it('a schema with errors gives no code, and every error with its place', () => {
    const result = generate({ file: 'bad.polylang', text: 'collection A {\n  id: string;\n  n: number;\n  constructor (id: string) { this.id = id; this.n = "x"; }\n}\n' });
    expect(result.code).toBeNull();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/^bad\.polylang:4:\d+: error V3\d{3}: /);
  });

  it('refuses a collection declared in two files, no files, files without a collection and an empty import', () => {
    const a = { file: 'a.polylang', text: '@public collection A { id: string; constructor (id: string) { this.id = id; } }' };
    const b = { file: 'b.polylang', text: '\n@public\ncollection A { id: string; constructor (id: string) { this.id = id; } }' };
    expect(generate(a, b).errors).toEqual([
      'b.polylang:3:12: error: collection A is also declared in a.polylang:1; a client has one type per collection name, so generate from files that declare each collection once',
    ]);
    expect(generate().errors).toEqual(['error: no schema files given']);
    expect(generate({ file: 'c.polylang', text: '// nothing\n' }).errors).toEqual(['error: the schema files declare no collection: c.polylang']);
    expect(generateClient([a], { clientImport: ' ' }).errors[0]).toMatch(/^error: clientImport must be a module specifier/);
    // From plain JavaScript: a clear error rather than a TypeError from deep inside.
    expect(generateClient(null as never).errors).toEqual(['error: sources must be an array of { file, text }, got null']);
    expect(generateClient([a, { file: 'b.polylang' }] as never).errors).toEqual(['error: sources[1] must be { file: string, text: string }']);
  });

  it('names that are not identifiers are quoted, and file names cannot end a comment', () => {
    const { code } = generate({ file: 'odd*/name.polylang', text: '@public collection A { id: string; info: { x: string; }; @index(info.x); constructor (id: string) { this.id = id; this.info = { x: id }; } }' });
    expect(code).toContain("'info.x': string;");
    expect(code).not.toContain('odd*/');
  });
});

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function vellum(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...VELLUM, 'generate', ...args], { encoding: 'utf8', cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('vellum generate client', () => {
  it('writes the file given with --out, or prints to stdout; a directory means its .polylang files; exit 0', async () => {
    const dir = moduleFolder('vellum-codegen-cli-');
    const out = join(dir, 'shop.ts');
    const [written, printed, folder] = await Promise.all([vellum('client', SHOP, '--out', out), vellum('client', SHOP), vellum('client', 'fixtures/codegen')]);
    expect(written).toMatchObject({ status: 0, stdout: '', stderr: `wrote ${out} (1 schema file)\n` });
    expect(readFileSync(out, 'utf8')).toBe(read(BASELINE));
    expect(printed).toMatchObject({ status: 0, stdout: read(BASELINE) });
    expect(folder.status).toBe(0);
    expect(folder.stdout).toContain('from fixtures/codegen/reserved-names.polylang, fixtures/codegen/shop.polylang.');
  });

  it('on a schema error or an unreadable file: the errors on stderr, exit 1, nothing written', async () => {
    const dir = moduleFolder('vellum-codegen-cli-');
    const broken = join(dir, 'broken.polylang');
    writeFileSync(broken, 'collection T {\n  id: string;\n  f () { this.nope = 1; }\n}\n');
    const kept = join(dir, 'kept.ts');
    writeFileSync(kept, '// an earlier client\n');
    const [bad, missing, usage, noCommand] = await Promise.all([
      vellum('client', SHOP, broken, '--out', join(dir, 'new.ts')),
      vellum('client', join(dir, 'nowhere.polylang'), '--out', kept),
      vellum('client'),
      vellum('server', SHOP),
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`${broken}:3:`);
    expect(existsSync(join(dir, 'new.ts'))).toBe(false);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/nowhere\.polylang.*no such file/);
    expect(readFileSync(kept, 'utf8')).toBe('// an earlier client\n');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("missing required argument 'paths'");
    expect(noCommand.status).toBe(2);
  });

  it('refuses an --out that is one of its schema files, named any way: the schema is left as it was', async () => {
    const dir = moduleFolder('vellum-codegen-cli-');
    const schema = join(dir, 'shop.polylang');
    writeFileSync(schema, read(SHOP));
    const [same, otherSpelling, inFolder] = await Promise.all([
      vellum('client', schema, '--out', schema),
      vellum('client', schema, '--out', join(dir, '.', 'shop.polylang')),
      vellum('client', dir, '--out', schema),
    ]);
    for (const run of [same, otherSpelling, inFolder]) {
      expect(run).toMatchObject({ status: 1, stdout: '' });
      expect(run.stderr).toMatch(/^error: --out .*shop\.polylang is one of the schema files read; choose another file for the client\n$/);
    }
    expect(readFileSync(schema, 'utf8')).toBe(read(SHOP));
  });

  it('--out creates its folder', async () => {
    const dir = moduleFolder('vellum-codegen-cli-');
    const out = join(dir, 'src', 'generated', 'shop.ts');
    expect(await vellum('client', SHOP, '--out', out)).toMatchObject({ status: 0, stderr: `wrote ${out} (1 schema file)\n` });
    expect(readFileSync(out, 'utf8')).toBe(read(BASELINE));
  });

  it('--watch writes the client again on every change, keeps the last good one on an error, and needs --out', async () => {
    expect(await vellum('client', SHOP, '--watch')).toMatchObject({ status: 1, stderr: expect.stringContaining('--watch needs --out') });
    const dir = moduleFolder('vellum-codegen-cli-');
    const schema = join(dir, 'note.polylang');
    const out = join(dir, 'client.ts');
    const note = (field: string) => `@public\ncollection Note {\n  id: string;\n  /// ${field}\n  ${field}: string;\n\n  constructor (id: string) {\n    this.id = id;\n    this.${field} = '';\n  }\n}\n`;
    writeFileSync(schema, note('title'));
    const child = spawn(process.execPath, [...VELLUM, 'generate', 'client', schema, '--out', out, '--watch'], { cwd: ROOT });
    let stderr = '';
    const seen = (text: string, count: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited for ${count}x ${JSON.stringify(text)}; stderr:\n${stderr}`)), 30_000);
        const look = () => {
          if (stderr.split(text).length - 1 >= count) {
            clearTimeout(timer);
            child.stderr.off('data', look);
            resolve();
          }
        };
        child.stderr.on('data', look);
        look();
      });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      await seen('watching', 1);
      expect(readFileSync(out, 'utf8')).toContain('  /** title */\n  title: string;');
      writeFileSync(schema, note('body'));
      await seen(`wrote ${out}`, 2);
      expect(readFileSync(out, 'utf8')).toContain('  /** body */\n  body: string;');
      writeFileSync(schema, note('body').replace('id: string;', 'id: strin;'));
      await seen('V2029', 1);
      expect(readFileSync(out, 'utf8')).toContain('body: string;');
      writeFileSync(schema, note('text'));
      await seen(`wrote ${out}`, 3);
      expect(readFileSync(out, 'utf8')).toContain('text: string;');
    } finally {
      child.kill();
    }
  }, 120_000);
});

// `vellum lsp` driven by an LSP client library (vscode-jsonrpc over the server's stdio, as an editor would):
// diagnostics after an edit, outline, formatting, references, rename, completion (of members by type too) and
// semantic tokens.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node.js';
import { VELLUM } from '../support/cli.ts';

const uri = 'file:///tmp/account.polylang';
const text = `@public
collection Account {
  id: string;
  balance: number;

  constructor (id: string) {
    this.id = id;
    this.balance = 0;
  }

  deposit (amount: number) {
    this.balance += amount;
    this.check(amount);
  }

  check (amount: number) {
    if (amount < 0) { error('negative'); }
  }
}
`;

let server: ReturnType<typeof spawn>;
let connection: MessageConnection;
const published: { uri: string; version?: number; diagnostics: { code: string; message: string; range: unknown }[] }[] = [];

function waitForDiagnostics(version: number): Promise<(typeof published)[number]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no diagnostics')), 60_000);
    const look = () => {
      const found = published.find((p) => p.version === version);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      } else setTimeout(look, 20);
    };
    look();
  });
}

beforeAll(async () => {
  server = spawn(process.execPath, [...VELLUM, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  connection = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  connection.onNotification('textDocument/publishDiagnostics', (params) => published.push(params));
  connection.listen();
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  await connection.sendNotification('initialized', {});
  await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'polylang', version: 1, text } });
}, 60_000);

afterAll(() => {
  connection?.dispose();
  server?.kill();
});

const at = (line: number, character: number) => ({ textDocument: { uri }, position: { line, character } });

describe('vellum lsp over stdio', () => {
  it('publishes diagnostics for each version: none, then the error an edit makes, then none', async () => {
    expect((await waitForDiagnostics(1)).diagnostics).toEqual([]);
    await connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 3, character: 11 }, end: { line: 3, character: 17 } }, text: 'strng' }],
    });
    const second = await waitForDiagnostics(2);
    expect(second.diagnostics.map((d) => [d.code, d.message])).toEqual([['V2029', 'unknown type "strng"; did you mean "string"?']]);
    await connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 3 },
      contentChanges: [{ range: { start: { line: 3, character: 11 }, end: { line: 3, character: 16 } }, text: 'number' }],
    });
    expect((await waitForDiagnostics(3)).diagnostics).toEqual([]);
  });

  it('gives the outline', async () => {
    const symbols = await connection.sendRequest<{ name: string; children: { name: string; detail?: string }[] }[]>('textDocument/documentSymbol', { textDocument: { uri } });
    expect(symbols.map((s) => [s.name, s.children.map((c) => c.name)])).toEqual([['Account', ['id', 'balance', 'constructor', 'deposit', 'check']]]);
  });

  it('finds every reference of a field and renames a function everywhere', async () => {
    const refs = await connection.sendRequest<{ range: { start: { line: number; character: number } } }[]>('textDocument/references', { ...at(3, 3), context: { includeDeclaration: true } });
    expect(refs.map((r) => [r.range.start.line, r.range.start.character])).toEqual([[3, 2], [7, 9], [11, 9]]);
    const edit = await connection.sendRequest<{ changes: Record<string, { range: { start: { line: number } }; newText: string }[]> }>('textDocument/rename', { ...at(12, 10), newName: 'verify' });
    expect(edit.changes[uri]!.map((e) => [e.range.start.line, e.newText])).toEqual([[12, 'verify'], [15, 'verify']]);
    await expect(connection.sendRequest('textDocument/rename', { ...at(2, 2), newName: 'key' })).rejects.toThrow('cannot be renamed');
  });

  it("finds a parameter's uses in its own function only, and goes to its declaration", async () => {
    // `amount` of deposit (line 10), not the parameter of the same name of check.
    const refs = await connection.sendRequest<{ range: { start: { line: number; character: number } } }[]>('textDocument/references', { ...at(12, 18), context: { includeDeclaration: true } });
    expect(refs.map((r) => [r.range.start.line, r.range.start.character])).toEqual([[10, 11], [11, 20], [12, 15]]);
    const definition = await connection.sendRequest<{ range: { start: { line: number; character: number } } }>('textDocument/definition', at(11, 22));
    expect([definition.range.start.line, definition.range.start.character]).toEqual([10, 11]);
  });

  it('ties names in @call and @index arguments to their fields: hover, definition, references and rename', async () => {
    const other = 'file:///tmp/person.polylang';
    const person = `collection Person {
  id: string;
  name: string;
  age: number;
  owner: PublicKey;
  info: { city: string; };

  @index(name, [age, desc]);
  @index(info.city);

  constructor (id: string) {
    this.id = id;
    this.name = id;
    this.age = 0;
    this.owner = ctx.publicKey;
    this.info = { city: 'Oslo' };
  }

  @call(owner)
  rename (name: string) {
    this.name = name;
  }
}
`;
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: other, languageId: 'polylang', version: 1, text: person } });
    const on = (line: number, character: number) => ({ textDocument: { uri: other }, position: { line, character } });
    const where = (r: { range: { start: { line: number; character: number } } }) => [r.range.start.line, r.range.start.character];
    type Located = { range: { start: { line: number; character: number } } };

    // `owner` in `@call(owner)` (line 18): its field, its type, every use.
    const hover = await connection.sendRequest<{ contents: { value: string } }>('textDocument/hover', on(18, 8));
    expect(hover.contents.value).toContain('(field) Person.owner: PublicKey');
    expect(where(await connection.sendRequest<Located>('textDocument/definition', on(18, 8)))).toEqual([4, 2]);
    const ownerRefs = await connection.sendRequest<Located[]>('textDocument/references', { ...on(4, 3), context: { includeDeclaration: true } });
    expect(ownerRefs.map(where)).toEqual([[4, 2], [14, 9], [18, 8]]);

    // `age` in `[age, desc]` and `city` in `info.city`: definition goes to the field (the inner one for `city`).
    expect(where(await connection.sendRequest<Located>('textDocument/definition', on(7, 17)))).toEqual([3, 2]);
    expect(where(await connection.sendRequest<Located>('textDocument/definition', on(8, 14)))).toEqual([5, 10]);
    expect(where(await connection.sendRequest<Located>('textDocument/definition', on(8, 9)))).toEqual([5, 2]);

    // Renaming `name` from the index renames the field, the index and `this.name`, but not the parameter `name`.
    const edit = await connection.sendRequest<{ changes: Record<string, (Located & { newText: string })[]> }>('textDocument/rename', { ...on(7, 9), newName: 'fullName' });
    expect(edit.changes[other]!.map(where)).toEqual([[2, 2], [7, 9], [12, 9], [20, 9]]);
  });

  it('completes fields and functions after this., decorators after @', async () => {
    const afterThis = await connection.sendRequest<{ label: string }[]>('textDocument/completion', at(11, 9));
    expect(afterThis.map((c) => c.label)).toEqual(['id', 'balance', 'deposit', 'check']);
    const decorators = await connection.sendRequest<{ label: string }[]>('textDocument/completion', at(0, 1));
    expect(decorators.map((c) => c.label)).toContain('call');
  });

  it('gives semantic tokens: collections, fields, functions, parameters, types and decorators by what they are', async () => {
    const { data } = await connection.sendRequest<{ data: number[] }>('textDocument/semanticTokens/full', { textDocument: { uri } });
    const types = ['class', 'property', 'method', 'parameter', 'variable', 'type', 'decorator', 'function'];
    const tokens: [number, number, string][] = [];
    let line = 0;
    let character = 0;
    for (let i = 0; i < data.length; i += 5) {
      line += data[i]!;
      character = data[i]! === 0 ? character + data[i + 1]! : data[i + 1]!;
      tokens.push([line, character, types[data[i + 3]!]!]);
    }
    expect(tokens).toEqual(
      expect.arrayContaining([
        [0, 0, 'decorator'],
        [1, 11, 'class'],
        [2, 2, 'property'],
        [2, 6, 'type'],
        [10, 11, 'parameter'],
        [11, 9, 'property'],
        [11, 20, 'parameter'],
        [12, 9, 'method'],
        [16, 22, 'function'],
      ]),
    );
  });

  it('completes the members of a value by its type: array and string methods, a reference\'s keys', async () => {
    const complete = async (version: number, body: string, line: number, character: number) => {
      const edited = text.replace('    this.check(amount);\n', `    this.check(amount);\n${body}`);
      await connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text: edited }] });
      const items = await connection.sendRequest<{ label: string; detail?: string }[]>('textDocument/completion', at(line, character));
      return items.map((c) => c.label);
    };
    const onArray = await complete(10, `    let names = ['a'];\n    names.\n`, 14, 10);
    expect(onArray).toEqual(expect.arrayContaining(['push', 'splice', 'length', 'indexOf']));
    expect(onArray).not.toContain('toUpperCase');
    const onString = await complete(11, `    this.id.to\n`, 13, 14);
    expect(onString).toEqual(expect.arrayContaining(['toUpperCase', 'slice', 'length']));
    expect(onString).not.toContain('push');
    // A variable typed with a collection's name holds a stored reference: its id and collectionId.
    const onReference = await complete(12, `    let other: Account = this;\n    other.\n`, 14, 10);
    expect(onReference).toEqual(['id', 'collectionId']);
    // `this.` still offers the collection's fields and functions.
    expect(await complete(13, `    this.\n`, 13, 9)).toEqual(['id', 'balance', 'deposit', 'check']);
  });

  it('formats the document', async () => {
    await connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 4 }, contentChanges: [{ text: 'collection A { id : string; }' }] });
    const edits = await connection.sendRequest<{ newText: string }[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    expect(edits.map((e) => e.newText)).toEqual(['collection A {\n  id: string;\n}\n']);
  });
});

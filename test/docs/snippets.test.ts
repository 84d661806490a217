// Every TypeScript snippet in README.md and docs/*.md runs as written, importing from `vellum` as a user's
// code does (vitest.config.ts points `vellum` and `vellum/testing` at the sources; the consumer test runs the
// README's property test against the packed package). The README's worked example is set up first: a server
// with its `account.polylang` installed as demo/Account, the key file `my.key`, and the record alice with a
// balance of 25, so the snippets that continue it run against it. A snippet that defines vitest tests (the
// property test) is imported here, at collection time, so its tests run as tests of this file. A snippet that
// uses a generated client (it imports `./client.ts`) is left to test/codegen/typecheck.test.ts, which generates
// the client and type-checks the snippet with it.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signRequest, startServer, type RunningServer } from '../../src/index.ts';
import { DOCUMENTS, isTestSnippet, readmeBlockAfter, snippetFileName, snippetsOf, usesGeneratedClient, type Snippet } from '../support/snippets.ts';

const scratch = mkdtempSync(join(tmpdir(), 'vellum-snippets-'));

const PRIVATE_KEY = '0x' + '42'.repeat(32);
let server: RunningServer;
const workingDirectory = process.cwd();

beforeAll(async () => {
  writeFileSync(join(scratch, 'account.polylang'), readmeBlockAfter('this schema in `account.polylang`'));
  writeFileSync(join(scratch, 'my.key'), `${PRIVATE_KEY}\n`);
  // docs/codegen.md generates a client for its example schema.
  copyFileSync(new URL('../../fixtures/codegen/shop.polylang', import.meta.url), join(scratch, 'shop.polylang'));
  server = await startServer({ port: 0, dataDir: join(scratch, 'data'), schemaFiles: [join(scratch, 'account.polylang')], namespace: 'demo' });
  const post = async (path: string, args: unknown[]) => {
    const body = JSON.stringify({ args });
    const response = await fetch(`${server.url}/v0/collections/demo%2FAccount/records${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signRequest(PRIVATE_KEY, body) },
      body,
    });
    expect(response.status).toBe(200);
  };
  await post('', ['alice', 'Alice']);
  await post('/alice/call/deposit', [25]);
  // The snippets read account.polylang and my.key from the current folder, as the README's reader would.
  process.chdir(scratch);
});

afterAll(async () => {
  process.chdir(workingDirectory);
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function fileFor(snippet: Snippet): string {
  const file = join(scratch, snippetFileName(snippet));
  // The README's address of the server it started becomes the address of the one started here.
  writeFileSync(file, snippet.code.replaceAll('http://localhost:8080', () => server.url));
  return file;
}

// Snippets that are not tests run as tests here; the others are imported at the end of this file.
for (const document of DOCUMENTS) {
  const snippets = snippetsOf(document).filter((snippet) => !isTestSnippet(snippet) && !usesGeneratedClient(snippet));
  if (snippets.length === 0) continue;
  describe(document, () => {
    for (const snippet of snippets) {
      it(`the snippet at ${snippet.place} runs`, async () => {
        const logged: unknown[][] = [];
        const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
        try {
          await import(fileFor(snippet));
        } finally {
          log.mockRestore();
        }
        if (snippet.code.includes('/call/deposit')) expect(logged[0]).toEqual([200, expect.objectContaining({ data: expect.objectContaining({ id: 'alice', balance: 30 }) })]);
      });
    }
  });
}

// Snippets that are tests themselves: importing one registers its tests here.
for (const document of DOCUMENTS) {
  for (const snippet of snippetsOf(document).filter(isTestSnippet)) {
    const file = join(scratch, snippetFileName(snippet));
    writeFileSync(file, snippet.code);
    await import(file);
  }
}

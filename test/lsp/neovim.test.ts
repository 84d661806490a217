// The language server in a real editor: Debian's Neovim, headless, starts `vellum lsp` as its language server for
// a schema, and the test reads what Neovim received: the diagnostics (with their codes), a hover (the field's type
// and its doc comment), a definition (of a field used in a body) and, once a dot is typed after a string field, the
// completion of its string methods.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VELLUM } from '../support/cli.ts';

const nvim = spawnSync('nvim', ['--version']).status === 0;
const temp = mkdtempSync(join(tmpdir(), 'vellum-nvim-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const schema = `@public
collection Account {
  id: string;
  /// The balance in cents.
  balance: number;

  constructor (id: string) {
    this.id = id;
    this.balance = 'none';
  }

  deposit (amount: number) {
    this.balance += amount;
  }
}
`;

const lua = (file: string, out: string) => `
local out = {}
local cmd = vim.fn.json_decode(${JSON.stringify(JSON.stringify([process.execPath, ...VELLUM, 'lsp', '--stdio']))})
local client = vim.lsp.start_client({ name = 'vellum', cmd = cmd, root_dir = ${JSON.stringify(temp)} })
vim.cmd('edit ${file}')
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client)
vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 100)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(out.diagnostics, { line = d.lnum, col = d.col, message = d.message, code = code })
end
local function request(method, line, character)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = character } }
  local responses = vim.lsp.buf_request_sync(buf, method, params, 60000)
  for _, response in pairs(responses or {}) do return response.result end
end
out.hover = request('textDocument/hover', 12, 11)
out.definition = request('textDocument/definition', 12, 11)
-- Type a dot after a string field: the completion offers string methods (the buffer does not parse then).
vim.api.nvim_buf_set_lines(buf, 12, 13, false, { '    this.id.' })
local completion = request('textDocument/completion', 12, 12) or {}
out.completion = {}
for _, item in ipairs(completion.items or completion) do table.insert(out.completion, item.label) end
vim.fn.writefile({ vim.fn.json_encode(out) }, ${JSON.stringify(out)})
vim.cmd('qa!')
`;

describe.runIf(nvim)('Neovim with vellum lsp', () => {
  it('shows diagnostics with codes, a hover with the doc comment, goes to the definition and completes methods', () => {
    const file = join(temp, 'account.polylang');
    const script = join(temp, 'test.lua');
    const out = join(temp, 'out.json');
    writeFileSync(file, schema);
    writeFileSync(script, lua(file, out));
    const run = spawnSync('nvim', ['--headless', '--clean', '-c', `luafile ${script}`], { cwd: temp, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.diagnostics).toEqual([{ line: 8, col: 19, code: 'V3006', message: 'cannot assign string to field "balance" of type number' }]);
    expect(result.hover.contents.value).toBe('```vellum\n(field) Account.balance: number\n```\n\nThe balance in cents.');
    const definition = Array.isArray(result.definition) ? result.definition[0] : result.definition;
    expect(definition.range).toEqual({ start: { line: 4, character: 2 }, end: { line: 4, character: 9 } });
    expect(result.completion).toEqual(expect.arrayContaining(['toUpperCase', 'slice', 'length']));
    expect(result.completion).not.toContain('push');
  }, 150_000);
});

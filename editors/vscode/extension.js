// The VS Code extension: starts `vellum lsp` (the command is the `vellum.command` setting) as the language server
// of .polylang files, through vscode-languageclient. Highlighting is the TextMate grammar in syntaxes/.
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration('vellum').get('command');
  const server = { command, args, transport: TransportKind.stdio, options: { shell: process.platform === 'win32' } };
  client = new LanguageClient('vellum', 'Vellum', { run: server, debug: server }, { documentSelector: [{ language: 'polylang' }] });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

// The language server (`vellum lsp`): diagnostics, hover, definition, completion and more over LSP.
export { startServer } from './server.ts';

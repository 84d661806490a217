// `vellum lsp`: runs the language server (src/lsp) over stdin and stdout, for editors (editors/ has the VS Code
// extension and a Neovim configuration).
import type { Command } from 'commander';

export function registerLsp(program: Command): void {
  program
    .command('lsp')
    .description('run the Vellum language server over stdio (for editors)')
    .option('--stdio', 'talk over stdin and stdout (the default and only transport; editors pass it)')
    .action(async () => {
      const { startServer } = await import('../lsp/index.ts');
      startServer();
    });
}

// `vellum`: the command line. Each command lives in its own file, which is imported only when that command
// runs: `vellum check` must start fast, so it must not load the server, the store or their packages.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';

type Register = (program: Command) => void;

// Commands, one line each: the summary `vellum --help` lists, and how to load the module that registers the command
// (its usage, options and full description are there).
const commands: Record<string, [summary: string, load: () => Promise<Register>]> = {
  call: ['run a collection function over a record and print the transition as JSON', async () => (await import('./call.ts')).registerCall],
  check: ['parse and check schema files (text, json, github or sarif output)', async () => (await import('./check.ts')).registerCheck],
  fmt: ['format schema files in the canonical layout, comments kept', async () => (await import('./fmt.ts')).registerFmt],
  generate: ['generate code from schema files (a typed client)', async () => (await import('./generate.ts')).registerGenerate],
  lsp: ['run the language server over stdio (for editors)', async () => (await import('./lsp.ts')).registerLsp],
  migrate: ['plan, apply, list and revert schema changes against a data folder or database', async () => (await import('./migrate.ts')).registerMigrate],
  serve: ['run the record service (Polybase-compatible HTTP API under /v0)', async () => (await import('./serve.ts')).registerServe],
  sign: ['print an X-Service-Signature header value for a request body', async () => (await import('./sign.ts')).registerSign],
};

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command();
program
  .name('vellum')
  .version(version)
  .description('Vellum: collection schemas, their functions, and the record service')
  .showHelpAfterError("(run 'vellum <command> --help' for the usage)")
  // Bad usage exits 2 (commander's default is 1, which our commands use for "the input has errors").
  .exitOverride((error) => {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exit(0);
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

// The first word that is not an option names the command, and only that command's module is loaded (`help <command>`
// loads the command named). Otherwise (no command, `--help`, `help`, a misspelt one) no module is loaded: each command
// is listed by its summary, which is all the overview and commander's suggestions need. `vellum --help` then costs
// what `vellum --version` does (bench/cli.ts measures both).
const words = process.argv.slice(2);
const firstWord = words.findIndex((word) => !word.startsWith('-'));
const requested = firstWord < 0 ? undefined : words[firstWord] === 'help' ? words[firstWord + 1] : words[firstWord];
if (requested !== undefined && Object.hasOwn(commands, requested)) {
  (await commands[requested]![1]())(program);
} else {
  for (const [name, [summary]] of Object.entries(commands)) program.command(name).description(summary);
}

await program.parseAsync(process.argv);

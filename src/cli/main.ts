// `vellum`: the command line. Each command lives in its own file, which is imported only when that command
// runs: `vellum check` must start fast, so it must not load the server, the store or their packages.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';

type Register = (program: Command) => void;

// Commands (one line each): the name and how to load the module that registers it.
const commands: Record<string, () => Promise<Register>> = {
  call: async () => (await import('./call.ts')).registerCall,
  check: async () => (await import('./check.ts')).registerCheck,
  generate: async () => (await import('./generate.ts')).registerGenerate,
  migrate: async () => (await import('./migrate.ts')).registerMigrate,
  serve: async () => (await import('./serve.ts')).registerServe,
  sign: async () => (await import('./sign.ts')).registerSign,
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

// The first word that is not an option names the command. When it names one, only that command is loaded;
// `--version` alone needs none; otherwise (no command, `help`, a misspelt one) every command is, so that help and
// suggestions list them all.
const words = process.argv.slice(2);
const requested = words.find((word) => !word.startsWith('-'));
const wanted =
  requested !== undefined && Object.hasOwn(commands, requested)
    ? [requested]
    : requested === undefined && (words.includes('--version') || words.includes('-V'))
      ? []
      : Object.keys(commands);
for (const register of await Promise.all(wanted.map((name) => commands[name]!()))) register(program);

await program.parseAsync(process.argv);

// `vellum`: the command line. Each command lives in its own file and registers itself here.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerCheck } from './check.ts';
import { registerSign } from './sign.ts';
import { registerServe } from './serve.ts';
import { registerCall } from './call.ts';
import { registerGenerate } from './generate.ts';

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

// Commands (one line each):
registerCall(program);
registerCheck(program);
registerGenerate(program);
registerSign(program);
registerServe(program);

await program.parseAsync(process.argv);

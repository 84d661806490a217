// `vellum serve`: runs the record service. SQLite in `./data` by default, PostgreSQL with `--db`; schema files
// given with `--schema` are checked and installed at start (each collection as `<namespace>/<Name>`). Prints
// the address, then one line per request; SIGTERM or SIGINT lets in-flight requests finish and closes the store.
import { InvalidArgumentError, type Command } from 'commander';
import { startServer } from '../service/index.ts';

interface ServeFlags {
  port: number;
  host: string;
  data: string;
  db?: string;
  schema?: string[];
  namespace: string;
  quiet?: boolean;
}

function portNumber(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return port;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the record service (Polybase-compatible HTTP API under /v0)')
    .option('--port <n>', 'port to listen on (0: any free port)', portNumber, 8080)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', 'folder of the embedded SQLite database', './data')
    .option('--db <url>', 'a postgres:// URL: store records in PostgreSQL instead (several servers may share it)')
    .option('--schema <file...>', 'schema files to check and install at start')
    .option('--namespace <ns>', 'namespace of the collections of --schema files', 'app')
    .option('--quiet', 'do not log each request')
    .action(async (flags: ServeFlags) => {
      const write = (line: string) => process.stdout.write(`${line}\n`);
      let server;
      try {
        server = await startServer({
          port: flags.port,
          host: flags.host,
          dataDir: flags.data,
          databaseUrl: flags.db,
          schemaFiles: flags.schema ?? [],
          namespace: flags.namespace,
          log: flags.quiet ? (line) => (line.startsWith('internal error') ? process.stderr.write(`${line}\n`) : undefined) : write,
        });
      } catch (error) {
        process.stderr.write(`vellum serve: ${(error as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      write(`vellum serve: listening on ${server.url} (${flags.db ? 'PostgreSQL' : `SQLite in ${flags.data}`})`);
      const stop = (signal: string) => {
        write(`vellum serve: ${signal}, finishing in-flight requests`);
        server
          .close()
          .then(() => {
            write('vellum serve: stopped');
            process.exit(0);
          })
          .catch((error: unknown) => {
            process.stderr.write(`vellum serve: error while stopping: ${(error as Error).message}\n`);
            process.exit(1);
          });
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
}

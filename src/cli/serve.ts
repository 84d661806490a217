// `vellum serve`: runs the record service. SQLite in `./data` by default, PostgreSQL with `--db`; schema files
// given with `--schema` are checked and installed at start (each collection as `<namespace>/<Name>`). Every flag
// is also a setting from the environment or a config file (config.ts). Logs the address, then one entry per
// request (JSON lines, or readable lines on a terminal: service/log.ts); SIGTERM or SIGINT lets in-flight requests finish and closes the store
// (a second signal stops at once; one during the start stops it there, which SQLite and PostgreSQL transactions
// make safe).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { describeSettings, resolveSettings } from './config.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_EXPLORER_DIR, startServer } from '../service/index.ts';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat } from '../service/log.ts';
import type { LevelWithSilent } from 'pino';

interface ServeFlags {
  port: number;
  host: string;
  data: string;
  db?: string;
  schema?: string[];
  namespace: string;
  quiet?: boolean;
  explorer: boolean;
  privateLists: 'confined' | 'filtered';
  logLevel: LevelWithSilent;
  logFormat: LogFormat;
  drainDelay: number;
  metrics: boolean;
  metricsPort?: number;
}

function portNumber(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return port;
}

function databaseUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    throw new InvalidArgumentError('expected a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database');
  }
  return text;
}

function milliseconds(text: string): number {
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms > 600_000) throw new InvalidArgumentError('expected a whole number of milliseconds from 0 to 600000');
  return ms;
}

/** Collection ids are `<namespace>/<Name>`: a namespace of `/`-separated parts, none empty. */
function namespace(text: string): string {
  if (text === '' || text.split('/').some((part) => part === '')) {
    throw new InvalidArgumentError('expected a namespace of one or more non-empty parts separated by "/", such as app or org/app');
  }
  return text;
}

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;
type Signal = keyof typeof SIGNAL_NUMBERS;

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the record service (Polybase-compatible HTTP API under /v0)')
    .option('--port <n>', 'port to listen on (0: any free port)', portNumber, 8080)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', 'folder of the embedded SQLite database', './data')
    .addOption(
      new Option('--db <url>', 'a postgres:// URL: store records in PostgreSQL instead (several servers may share it)')
        .argParser(databaseUrl)
        .conflicts('data'), // the data folder would be silently ignored
    )
    .option('--schema <file...>', 'schema files to check and install at start')
    .option('--namespace <ns>', 'namespace of the collections of --schema files', namespace, 'app')
    .option('--quiet', 'do not log each request')
    .option('--no-explorer', 'do not serve the web explorer at /explorer/')
    .addOption(
      new Option('--private-lists <mode>', 'lists of private collections: confined (a list must be limited by its where to records the caller may read, else 403) or filtered (unreadable records left out, as Polybase 0.6 did; leaks, see docs/service.md)')
        .choices(['confined', 'filtered'])
        .default('confined'),
    )
    .addOption(new Option('--log-level <level>', 'the least level logged').choices(LOG_LEVELS).default('info'))
    .addOption(new Option('--log-format <format>', 'log entries as JSON lines, or as readable text (auto: text on a terminal)').choices(LOG_FORMATS).default('auto'))
    .option('--drain-delay <ms>', 'on SIGTERM, go on serving this long with /v0/ready answering 503 before stopping (for a load balancer to notice)', milliseconds, 0)
    .option('--no-metrics', 'do not serve Prometheus metrics at /metrics')
    .option('--metrics-port <n>', 'serve /metrics on this port (of --host) instead of the service port', portNumber)
    .option('--config <file>', 'a JSON file of settings, such as {"port": 8080, "db": "postgres://..."} (also VELLUM_CONFIG); see docs/deploying.md')
    .option('--print-config', 'print the effective settings (secrets masked) and where each came from, then exit')
    .addHelpText(
      'after',
      '\nEvery option is also a setting: --private-lists is VELLUM_PRIVATE_LISTS in the environment and "private-lists"\n' +
        'in the --config file (--no-explorer is VELLUM_EXPLORER=false or "explorer": false; PORT also sets the port).\n' +
        'A flag wins over the environment, which wins over the config file, which wins over the default.',
    )
    .action(async (_flags: unknown, command: Command) => {
      const resolved = resolveSettings(command, { exclude: ['print-config'], envAliases: { port: ['PORT'] } });
      if (resolved.errors.length > 0) {
        for (const line of resolved.errors) process.stderr.write(`vellum serve: ${line}\n`);
        process.exitCode = 2;
        return;
      }
      if (resolved.values.printConfig) {
        process.stdout.write(`${describeSettings(resolved.settings).join('\n')}\n`);
        return;
      }
      const flags = resolved.values as unknown as ServeFlags;
      const logger = createLogger({ level: flags.logLevel, format: flags.logFormat });
      let stop: (signal: Signal) => void = (signal) => {
        process.stderr.write(`vellum serve: ${signal} while starting, stopping\n`);
        process.exit(128 + SIGNAL_NUMBERS[signal]);
      };
      const onSignal = (signal: Signal) => stop(signal);
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({
          port: flags.port,
          host: flags.host,
          dataDir: flags.data,
          databaseUrl: flags.db,
          schemaFiles: flags.schema ?? [],
          namespace: flags.namespace,
          explorer: flags.explorer ? {} : false,
          privateLists: flags.privateLists,
          drainDelayMs: flags.drainDelay,
          metrics: flags.metrics,
          ...(flags.metrics && flags.metricsPort !== undefined ? { metricsPort: flags.metricsPort } : {}),
          // Quiet: no per-request entry, so no per-request hook either; other entries (internal errors) still go out.
          logRequests: !flags.quiet,
          logger,
        });
      } catch (error) {
        process.stderr.write(`vellum serve: ${(error as Error).message}\n`);
        process.exitCode = 1;
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        return;
      }
      logger.info(`listening on ${server.url} (${flags.db ? 'PostgreSQL' : `SQLite in ${flags.data}`})`);
      if (server.metricsUrl) logger.info(`metrics at ${server.metricsUrl}`);
      if (flags.explorer) {
        const built = existsSync(join(DEFAULT_EXPLORER_DIR, 'index.html'));
        logger.info(`explorer at ${server.url}/explorer/${built ? '' : ' (not built: run npm run build:explorer)'}`);
      }
      stop = (signal) => {
        stop = (again) => {
          process.stderr.write(`vellum serve: ${again} again, stopping now without waiting for in-flight requests\n`);
          process.exit(1);
        };
        logger.info(`${signal}, finishing in-flight requests`);
        server
          .close()
          .then(() => {
            logger.info('stopped');
            logger.flush(() => process.exit(0));
          })
          .catch((error: unknown) => {
            process.stderr.write(`vellum serve: error while stopping: ${(error as Error).message}\n`);
            process.exit(1);
          });
      };
    });
}

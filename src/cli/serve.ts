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
import {
  ClientAddresses,
  CREATE_POLICIES,
  DEFAULT_BODY_LIMIT,
  DEFAULT_CREATE_POLICY,
  DEFAULT_EXPLORER_DIR,
  DEFAULT_RATE_LIMITS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  parseOrigin,
  parsePublicKey,
  startServer,
  type CreatePolicy,
  type ReservedNamespace,
} from '../service/index.ts';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat } from '../service/index.ts';
import type { LevelWithSilent } from 'pino';

interface ServeFlags {
  port: number;
  host: string;
  data: string;
  db?: string;
  schema?: string[];
  namespace: string;
  quiet?: boolean;
  debug?: boolean;
  explorer: boolean;
  privateLists: 'confined' | 'filtered';
  logLevel: LevelWithSilent;
  logFormat: LogFormat;
  drainDelay: number;
  metrics: boolean;
  metricsPort?: number;
  adminKey: string[];
  createPolicy: CreatePolicy;
  createKey: string[];
  reserveNamespace: ReservedNamespace[];
  keyNamespaces: boolean;
  corsOrigin: string[];
  rateLimits: boolean;
  sharedLimits: boolean;
  readsPerKey?: number;
  readsPerAddress?: number;
  writesPerKey?: number;
  writesPerAddress?: number;
  signaturesPerAddress?: number;
  gasPerMinute?: number;
  rateBurst?: number;
  trustProxy: string[];
  bodyLimit?: number;
  requestTimeout?: number;
  maxStreams?: number;
}

function positiveNumber(text: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0) || !Number.isFinite(value)) throw new InvalidArgumentError('expected a positive number');
  return value;
}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value > 0) || !Number.isSafeInteger(value)) throw new InvalidArgumentError('expected a positive whole number');
  return value;
}

function corsOrigin(text: string): string {
  try {
    return parseOrigin(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function proxy(text: string): string {
  try {
    new ClientAddresses([text]);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return text;
}

/** A repeatable flag's values, each checked by `parse`. */
function repeatable<T>(parse: (text: string) => T): (text: string, earlier: T[] | undefined) => T[] {
  return (text, earlier) => [...(earlier ?? []), parse(text)];
}

function publicKeyText(text: string): string {
  try {
    return parsePublicKey(text).toHex();
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** `--reserve-namespace acme=0x…,0x…`: the namespace and the keys it is reserved to. */
function reservedNamespace(text: string): ReservedNamespace {
  const equals = text.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError('expected <namespace>=<public key>[,<public key>…], such as acme=0x04ab…');
  const keys = text.slice(equals + 1).split(',').filter((key) => key.trim() !== '').map(publicKeyText);
  if (keys.length === 0) throw new InvalidArgumentError(`namespace ${text.slice(0, equals)} is reserved to no key: give at least one public key after "="`);
  return { namespace: namespace(text.slice(0, equals)), keys };
}

/**
 * Admin keys from the environment: `VELLUM_ADMIN_KEYS`, public keys separated by commas or white space. (Kept
 * apart from the flags: a generic VELLUM_* configuration layer may take this over.)
 */
export function adminKeysFromEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  const text = env.VELLUM_ADMIN_KEYS;
  if (text === undefined || text.trim() === '') return [];
  return text
    .split(/[\s,]+/)
    .filter((key) => key !== '')
    .map((key) => {
      try {
        return parsePublicKey(key).toHex();
      } catch (error) {
        throw new Error(`VELLUM_ADMIN_KEYS: ${(error as Error).message}`);
      }
    });
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
    .option('--debug', 'also log what functions log with log(...)')
    .option('--no-explorer', 'do not serve the web explorer at /explorer/')
    .addOption(
      new Option('--private-lists <mode>', 'lists of private collections: confined (a list must be limited by its where to records the caller may read, else 403) or filtered (unreadable records left out, as Polybase 0.6 did; leaks, see docs/service.md)')
        .choices(['confined', 'filtered'])
        .default('confined'),
    )
    .option('--admin-key <public-key>', 'a key that may create any collection and change any schema (repeatable; also VELLUM_ADMIN_KEYS); --schema collections belong to the admins', repeatable(publicKeyText), [])
    .addOption(
      new Option('--create-policy <policy>', 'who may create collections outside reserved namespaces: anyone (any signed key, as Polybase), keys (--create-key) or admins')
        .choices(CREATE_POLICIES)
        .default(DEFAULT_CREATE_POLICY),
    )
    .option('--create-key <public-key>', 'a key that may create collections under --create-policy keys (repeatable)', repeatable(publicKeyText), [])
    .option('--reserve-namespace <ns=keys>', 'reserve a namespace (and those under it) to keys: acme=0x…[,0x…] (repeatable)', repeatable(reservedNamespace), [])
    .option('--no-key-namespaces', 'do not let a key create collections in its own namespace pk/<key>/ unless the policy allows it (other keys stay out)')
    .option('--cors-origin <origin>', 'an origin whose pages may read answers with credentials, or * for any origin without (repeatable; default: *)', repeatable(corsOrigin), [])
    .option('--no-rate-limits', 'no limits per key and per client address (behind a proxy that limits instead)')
    .option('--reads-per-key <n>', `reads per second per signing key (default ${DEFAULT_RATE_LIMITS.readsPerKey})`, positiveNumber)
    .option('--reads-per-address <n>', `reads per second per client address (default ${DEFAULT_RATE_LIMITS.readsPerAddress})`, positiveNumber)
    .option('--writes-per-key <n>', `writes per second per signing key (default ${DEFAULT_RATE_LIMITS.writesPerKey})`, positiveNumber)
    .option('--writes-per-address <n>', `writes per second per client address (default ${DEFAULT_RATE_LIMITS.writesPerAddress})`, positiveNumber)
    .option('--signatures-per-address <n>', `signature checks per second per client address (default ${DEFAULT_RATE_LIMITS.signaturesPerAddress})`, positiveNumber)
    .option('--gas-per-minute <n>', `function gas per minute per key, or per address when unsigned (default ${DEFAULT_RATE_LIMITS.gasPerMinute})`, positiveNumber)
    .option('--rate-burst <seconds>', `how many seconds of its rate a client may send at once (default ${DEFAULT_RATE_LIMITS.burstSeconds})`, positiveNumber)
    .option('--no-shared-limits', "with --db, count each key's writes and gas in each server instead of in the database (no statement per signed write)")
    .option('--trust-proxy <addr>', 'a proxy address, network (10.0.0.0/8) or loopback whose X-Forwarded-For gives the client address (repeatable; default: none)', repeatable(proxy), [])
    .option('--body-limit <bytes>', `largest request body accepted (default ${DEFAULT_BODY_LIMIT})`, positiveInteger)
    .option('--request-timeout <ms>', `longest a client may take to send a request (default ${DEFAULT_REQUEST_TIMEOUT_MS})`, positiveInteger)
    .option('--max-streams <n>', 'most push-update streams open at once (default 1000)', positiveInteger)
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
      let adminKeys: string[] = [];
      try {
        adminKeys = [...new Set([...flags.adminKey, ...adminKeysFromEnvironment()])];
        server = await startServer({
          schemaAccess: {
            adminKeys,
            createPolicy: flags.createPolicy,
            createKeys: flags.createKey,
            reservedNamespaces: flags.reserveNamespace,
            keyNamespaces: flags.keyNamespaces,
          },
          cors: { origins: flags.corsOrigin.length > 0 ? flags.corsOrigin : ['*'] },
          rateLimits: flags.rateLimits
            ? {
                readsPerKey: flags.readsPerKey,
                readsPerAddress: flags.readsPerAddress,
                writesPerKey: flags.writesPerKey,
                writesPerAddress: flags.writesPerAddress,
                signaturesPerAddress: flags.signaturesPerAddress,
                gasPerMinute: flags.gasPerMinute,
                burstSeconds: flags.rateBurst,
                shared: flags.sharedLimits,
              }
            : false,
          trustProxy: flags.trustProxy,
          bodyLimit: flags.bodyLimit,
          requestTimeoutMs: flags.requestTimeout,
          maxStreams: flags.maxStreams,
          port: flags.port,
          host: flags.host,
          dataDir: flags.data,
          databaseUrl: flags.db,
          schemaFiles: flags.schema ?? [],
          namespace: flags.namespace,
          explorer: flags.explorer ? {} : false,
          privateLists: flags.privateLists,
          debug: flags.debug === true,
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
      logger.info(
        `schema changes by ${adminKeys.length === 1 ? '1 admin key' : `${adminKeys.length} admin keys`} and collection owners; new collections: policy ${flags.createPolicy}${flags.keyNamespaces ? ', and pk/<key>/ by its key' : ''}`,
      );
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

// `vellum sign`: prints the signature header value for a request body, so a curl user can sign a request:
//   curl -H "X-Service-Signature: $(vellum sign --key-file key.txt --body "$body")" -d "$body" …
import { Option, type Command } from 'commander';
import { KeyFormatError, publicKeyOf, signRequest } from '../auth/index.ts';
// The bounded reader straight from its module: the service's index.ts would load fastify, pg and the store.
import { FileReadError, readBounded } from '../files/index.ts';

/** A private key file holds 66 characters and maybe a line end; a body file up to what a server might accept. */
const MAX_KEY_FILE_BYTES = 64 * 1024;
const MAX_BODY_FILE_BYTES = 256 * 1024 * 1024;

interface SignFlags {
  key?: string;
  keyFile?: string;
  body?: string;
  bodyFile?: string;
  t?: string;
  pk?: boolean;
  publicKey?: boolean;
}

export function registerSign(program: Command): void {
  program
    .command('sign')
    .description('print an X-Service-Signature header value for a request body')
    .addOption(
      new Option('--key <hex>', 'private key, 0x + 64 hex digits (other local users can see it in the process list; prefer --key-file)')
        .conflicts('keyFile'),
    )
    .option('--key-file <path>', 'read the private key (0x + 64 hex digits) from a file')
    .addOption(new Option('--body <text>', 'the exact request body (default: empty, as for a GET)').conflicts('bodyFile'))
    .option('--body-file <path>', 'read the exact request body bytes from a file ("-" for standard input)')
    .option('--t <ms>', 'signing time in milliseconds since 1970 (default: now)')
    .option('--pk', 'also send the compressed public key as pk=')
    .option('--public-key', "print the key's public key (0x + 128 hex digits, as vellum serve --admin-key takes it) instead of a header")
    .action(function (this: Command, flags: SignFlags) {
      if (flags.key === undefined && flags.keyFile === undefined) this.error('error: one of --key or --key-file is required');
      try {
        const key = flags.key ?? readBounded(flags.keyFile!, MAX_KEY_FILE_BYTES, `--key-file ${flags.keyFile}`).toString('utf8').trim();
        if (flags.publicKey) {
          console.log(publicKeyOf(key).toHex());
          return;
        }
        const body =
          flags.bodyFile === undefined
            ? (flags.body ?? '')
            : flags.bodyFile === '-'
              ? readBounded(0, MAX_BODY_FILE_BYTES, '--body-file standard input')
              : readBounded(flags.bodyFile, MAX_BODY_FILE_BYTES, `--body-file ${flags.bodyFile}`);
        const t = flags.t === undefined ? Date.now() : parseTime(flags.t);
        console.log(signRequest(key, body, t, { includePublicKey: flags.pk === true }));
      } catch (error) {
        if (!(error instanceof KeyFormatError || error instanceof RangeError || error instanceof FileReadError)) throw error;
        console.error(`vellum sign: ${error.message}`);
        process.exitCode = 1;
      }
    });
}

function parseTime(text: string): number {
  const t = /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(t)) throw new RangeError(`--t must be milliseconds since 1970 as a decimal integer, got ${JSON.stringify(text)}`);
  return t;
}


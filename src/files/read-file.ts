// Reading a file named by a user (a schema file of `vellum serve` or `vellum check`, a key file, a body), with a
// size bound: a device such as /dev/zero or an endless pipe on standard input would otherwise be read until the
// process runs out of memory. Errors say which file and why. In a folder of its own so that the server and the
// CLI read files the same way, and `vellum check` reads them without loading the service.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Largest schema file the commands read (16 MiB took 6 s and 1.5 GB to check; the HTTP API takes 1 MiB). */
export const MAX_SCHEMA_FILE_BYTES = 4 * 1024 * 1024;

export class FileReadError extends Error {
  override readonly name = 'FileReadError';
}

/** The bytes of `path` (`0`: standard input), at most `maxBytes` of them; else a FileReadError naming `label`. */
export function readBounded(path: string | 0, maxBytes: number, label: string = path === 0 ? 'standard input' : path): Buffer {
  let fd: number;
  try {
    fd = path === 0 ? 0 : openSync(path, 'r');
  } catch (error) {
    throw new FileReadError(`cannot read ${label}: ${reasonOf(error)}`);
  }
  try {
    if (fstatSync(fd).isDirectory()) throw new FileReadError(`cannot read ${label}: is a directory`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new FileReadError(`cannot read ${label}: ${reasonOf(error)}`);
      }
      if (read === 0) break;
      total += read;
      if (total > maxBytes) throw new FileReadError(`cannot read ${label}: it is larger than ${maxBytes} bytes, the most this command reads`);
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks, total);
  } finally {
    if (path !== 0) closeSync(fd);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A text file: its bytes as UTF-8 (a byte-order mark is kept, as `readFileSync(path, 'utf8')` does). Bytes that
 * are not UTF-8 (a binary file) are one error with the place of the first, not a diagnostic per character.
 */
export function readBoundedText(path: string, maxBytes: number, label: string = path): string {
  const bytes = readBounded(path, maxBytes, label);
  try {
    return UTF8.decode(bytes);
  } catch {
    const text = bytes.toString('utf8');
    const before = text.slice(0, text.indexOf('\uFFFD'));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    throw new FileReadError(`cannot read ${label}: it is not UTF-8 text (the first byte that is not is at line ${line}, column ${column})`);
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return error instanceof Error ? error.message : String(error);
}

// A logger for tests: the service's pino log with each entry kept as its JSON line (no time), in `lines`.
import { pino, type Logger } from 'pino';

export function memoryLogger(lines: string[], level = 'info'): Logger {
  return pino({ level, base: undefined, timestamp: false, formatters: { level: (label: string) => ({ level: label }) } }, { write: (line: string) => void lines.push(line.trimEnd()) });
}

/** The entries of `lines`, parsed. */
export function entriesOf(lines: readonly string[]): Record<string, any>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, any>);
}

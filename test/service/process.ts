// Runs `vellum serve` as a separate process for tests: waits for its "listening on" line, collects its output.
import { spawn, type ChildProcess } from 'node:child_process';
import { VELLUM } from '../support/cli.ts';


export interface ServeProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

/** `env`: variables added to the test's own environment. */
export async function spawnServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...VELLUM, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vellum serve did not start:\n${out}`)), 30_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`vellum serve exited (${code}) before listening:\n${out}`));
    });
  });
  return { url, child, output: () => out, exited };
}

export async function stopServe(server: ServeProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  await server.exited;
}

export async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  return json(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

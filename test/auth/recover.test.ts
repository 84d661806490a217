// Choosing the recovery backend: native when it loads, JavaScript when forced or when it cannot.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsBackend, nativeBackend, recoveryBackend } from '../../src/auth/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The default backend's name in a fresh process with VELLUM_AUTH_BACKEND set to `value`. */
function defaultIn(value: string) {
  const script = "const { defaultBackend } = await import('./src/auth/index.ts'); console.log(defaultBackend.name);";
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, VELLUM_AUTH_BACKEND: value },
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

describe('recovery backends', () => {
  it('picks by name, preferring native', () => {
    expect(recoveryBackend('js')).toBe(jsBackend);
    expect(recoveryBackend('auto')).toBe(nativeBackend ?? jsBackend);
    if (nativeBackend !== null) expect(recoveryBackend('native')).toBe(nativeBackend);
    else expect(() => recoveryBackend('native')).toThrow(/could not be loaded/);
  });

  it('VELLUM_AUTH_BACKEND chooses the default: auto prefers native, js forces JavaScript, a wrong value is a clear error', () => {
    expect(defaultIn('auto').stdout).toBe(nativeBackend === null ? 'js' : 'native');
    expect(defaultIn('js').stdout).toBe('js');
    const wrong = defaultIn('fast');
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toContain('VELLUM_AUTH_BACKEND must be "native", "js" or "auto", got "fast"');
  });
});

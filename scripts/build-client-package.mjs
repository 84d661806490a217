// Builds packages/client (published as @vellum/client): the light client install, src/client and the signing
// code it imports, without the server. `npm pack packages/client` runs it (prepack). It checks that its version
// and @noble versions are the main package's, and that nothing but @noble is imported, so a change to src/client
// that reaches into the server fails the build rather than publishing a client that cannot load.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const pkg = join(root, 'packages/client');
const dist = join(pkg, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(pkg, 'tsconfig.json')], { stdio: 'inherit' });

const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// The light client runs on the versions the main package is tested with.
for (const [name, spec] of Object.entries({ ...manifest.dependencies, version: manifest.version })) {
  const wanted = name === 'version' ? rootManifest.version : rootManifest.dependencies[name];
  if (spec !== wanted) throw new Error(`packages/client/package.json has ${name} ${spec}, the main package ${wanted}: make them the same`);
}
const allowed = Object.keys(manifest.dependencies);
const files = (dir) => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
for (const file of files(dist).filter((name) => name.endsWith('.js'))) {
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\bfrom\s+['"]([^'"]+)['"]/g)) {
    if (specifier.startsWith('.')) continue;
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    if (!allowed.includes(name)) throw new Error(`${file.slice(root.length)} imports ${specifier}, which @vellum/client does not depend on`);
  }
}

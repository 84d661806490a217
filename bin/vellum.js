#!/usr/bin/env node
// The command line runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm install` in a
// clone and `npm pack` run through `prepare`), so no TypeScript loader sits in front of the server.
try {
  await import('../dist/cli/main.js');
} catch (error) {
  // Only a missing build gets this hint; any other failure is the command's own and propagates as it is.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  process.stderr.write("vellum: the compiled command line (dist/) is missing; run 'npm run build' in the package folder\n");
  process.exit(1);
}

#!/usr/bin/env node
// The command line runs the TypeScript sources directly through tsx, so an installed package needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

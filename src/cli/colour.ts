// Whether output to a stream is coloured, by the usual conventions: NO_COLOR (any value) turns colour off,
// FORCE_COLOR turns it on (0 or false: off), and otherwise a terminal other than TERM=dumb gets colour.
export function colourWanted(env: NodeJS.ProcessEnv, isTerminal: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR.toLowerCase() !== 'false';
  return isTerminal && env.TERM !== 'dumb';
}

// `vellum check`'s outputs for CI and terminals: SARIF 2.1.0 (validated against the SARIF schema committed in
// fixtures/sarif), GitHub workflow annotations, and colour on a terminal with NO_COLOR and FORCE_COLOR honoured.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvDraft04 from 'ajv-draft-04';
import { describe, expect, test } from 'vitest';
import { checkReport } from '../../src/cli/check.ts';
import { colourWanted } from '../../src/cli/colour.ts';
import { formatGithub } from '../../src/cli/report-github.ts';
import { checkSchema } from '../../src/lang/index.ts';
import { loadFixtures } from '../lang/corpus.ts';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const rejected = loadFixtures('rejected').map((f) => f.path);

describe('--format sarif', () => {
  const schema = JSON.parse(readFileSync(new URL('../../fixtures/sarif/sarif-2.1.0-rtm.5.json', import.meta.url), 'utf8'));
  // One pattern of the published schema (a language tag) is not a valid regular expression with the `u` flag.
  const validate = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false }).compile(schema);

  test('the log of every rejected fixture and an unreadable file is valid SARIF 2.1.0', () => {
    const { output, failed } = checkReport([...rejected, 'fixtures/no-such-file.polylang'], 'sarif');
    expect(failed).toBe(true);
    const log = JSON.parse(output);
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    // The validator does bite: a wrong version or level is refused.
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);
    expect(validate({ ...log, runs: [{ ...log.runs[0], results: [{ ...log.runs[0].results[0], level: 'fatal' }] }] })).toBe(false);
    const run = log.runs[0];
    const errors = rejected.flatMap((file) => checkSchema(readFileSync(file, 'utf8'), file).diagnostics);
    expect(run.results).toHaveLength(errors.length);
    expect(run.invocations[0].toolExecutionNotifications).toEqual([
      expect.objectContaining({ level: 'error', message: { text: 'cannot read file: no such file or directory' } }),
    ]);
  });

  test('a result has its rule, level, region and notes as related locations', () => {
    const file = 'fixtures/rejected/missing-brace-of-constructor.polylang';
    const run = JSON.parse(checkReport([file], 'sarif').output).runs[0];
    expect(run.tool.driver.rules).toEqual([{ id: 'V1013', shortDescription: { text: '{0} expected' } }]);
    expect(run.results).toEqual([
      {
        ruleId: 'V1013',
        ruleIndex: 0,
        level: 'error',
        message: { text: '`}` expected' },
        locations: [{ physicalLocation: { artifactLocation: { uri: file }, region: { startLine: 12, startColumn: 22, endLine: 12, endColumn: 22 } } }],
        relatedLocations: [
          {
            id: 0,
            message: { text: 'to close this `{`' },
            physicalLocation: { artifactLocation: { uri: file }, region: { startLine: 10, startColumn: 42, endLine: 10, endColumn: 43 } },
          },
        ],
      },
    ]);
  });
});

describe('--format github', () => {
  test('one workflow command per diagnostic, notes on the following lines of the message', () => {
    const { output } = checkReport(['fixtures/rejected/missing-brace-of-constructor.polylang', 'fixtures/rejected/misspelt-type.polylang', 'nope.polylang'], 'github');
    expect(output).toBe(
      '::error file=fixtures/rejected/missing-brace-of-constructor.polylang,line=12,endLine=12,col=22,endColumn=22,title=V1013 (vellum)::`}` expected%0Anote: fixtures/rejected/missing-brace-of-constructor.polylang:10:42: to close this `{`\n' +
        '::error file=fixtures/rejected/misspelt-type.polylang,line=8,endLine=8,col=9,endColumn=14,title=V2029 (vellum)::unknown type "strng"; did you mean "string"?\n' +
        '::error file=nope.polylang::cannot read file: no such file or directory\n',
    );
  });

  test('escapes what would end a command early', () => {
    const source = checkSchema('collection A { id: string; }', 'a%,b:c.polylang').source;
    const output = formatGithub([
      { file: 'a%,b:c.polylang', source, diagnostics: [{ code: 'V9', severity: 'warning', message: '100% sure\r\nreally', span: { start: 0, end: 1 }, notes: [] }] },
    ]);
    expect(output).toBe('::warning file=a%25%2Cb%3Ac.polylang,line=1,endLine=1,col=1,endColumn=2,title=V9 (vellum)::100%25 sure%0D%0Areally\n');
  });
});

describe('colour', () => {
  test('on a terminal, unless NO_COLOR; anywhere with FORCE_COLOR, unless it is 0 or false', () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
    expect(colourWanted({ TERM: 'dumb' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: 'false' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(false);
  });

  const file = 'fixtures/rejected/misspelt-type.polylang';
  const run = (env: NodeJS.ProcessEnv, terminal: boolean) => {
    const { NO_COLOR: _n, FORCE_COLOR: _f, ...rest } = process.env;
    const command = [process.execPath, ...VELLUM, 'check', file];
    // `script` runs the command on a pseudo-terminal, as a person's shell would.
    const [program, args] = terminal ? ['script', ['-qec', command.map((a) => `'${a}'`).join(' '), '/dev/null']] : [command[0]!, command.slice(1)];
    return spawnSync(program as string, args as string[], { cwd: root, env: { ...rest, TERM: 'xterm', ...env }, encoding: 'utf8', timeout: CLI_TIMEOUT_MS }).stdout;
  };
  const red = '\u001b[31merror\u001b[0m';

  test('the real command line: coloured on a terminal and with FORCE_COLOR, plain in a pipe and with NO_COLOR', () => {
    expect(run({}, true)).toContain(red);
    expect(run({ NO_COLOR: '1' }, true)).not.toContain('\u001b[');
    expect(run({}, false)).not.toContain('\u001b[');
    expect(run({ FORCE_COLOR: '1' }, false)).toContain(red);
  });
});

// Settings of a command from its flags, the environment and a config file, derived from the command's own
// commander options, so that a flag added to the command is settable all three ways with no more code.
//
// For an option `--private-lists <mode>` the setting is named `private-lists`: the environment variable is
// `VELLUM_PRIVATE_LISTS` and the config file key is `"private-lists"`. A negated flag (`--no-explorer`) is the
// setting `explorer` (`VELLUM_EXPLORER=false`, `"explorer": false`). Precedence: a flag given on the command
// line, then the environment, then the config file, then the option's default.
//
// - The config file is JSON: one object whose keys are setting names (`--config <file>`, or `VELLUM_CONFIG`).
// - Environment values are text; a switch (`--quiet`) takes true/false/1/0/yes/no/on/off, a list (a variadic or
//   repeatable option, such as `--schema <file...>`) takes comma-separated items. Config file values are JSON:
//   a string or number for a value, a boolean for a switch, an array (or one item) for a list.
// - Every value goes through the option's own parser and choices, as a flag would: every bad value is one line
//   saying where it came from (`resolveSettings` collects them all; the command exits 2).
// - `describeSettings` shows the effective values and where each came from, with secrets masked.

import type { Command, Option } from 'commander';
import { readBoundedText } from '../files/index.ts';

export type SettingSource = 'flag' | 'environment' | 'config file' | 'default';

export interface Setting {
  /** `private-lists` */
  readonly name: string;
  /** The commander attribute (`privateLists`): the key of `ResolvedSettings.values`. */
  readonly key: string;
  /** The environment variables read for it, the first present wins (`VELLUM_PORT`, then `PORT`). */
  readonly envNames: readonly string[];
  readonly value: unknown;
  readonly source: SettingSource;
  /** Where exactly: `--port`, `VELLUM_PORT`, the config file's path; undefined for a default. */
  readonly origin?: string;
}

export interface ResolvedSettings {
  /** The effective value of every setting, keyed as commander keys the options (`privateLists`). */
  readonly values: Record<string, unknown>;
  readonly settings: readonly Setting[];
  /** One line per bad value or conflict; empty when all is well. */
  readonly errors: readonly string[];
}

export interface ResolveOptions {
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Prefix of the environment variables (default `VELLUM_`). */
  envPrefix?: string;
  /** More environment variables read for a setting, after its own (`{ port: ['PORT'] }`). */
  envAliases?: Record<string, readonly string[]>;
  /** Options that are not settings (the config file's own flag, `--print-config`): left as commander parsed them. */
  exclude?: readonly string[];
  /** The config file's setting (default `config`): read from its flag or environment variable. */
  configSetting?: string;
}

/** The largest config file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** The setting's name: the long flag without its dashes (and without `no-` for a negated flag). */
export function settingName(option: Option): string {
  const long = (option.long ?? option.attributeName()).replace(/^--/, '');
  return option.negate ? long.replace(/^no-/, '') : long;
}

export function envName(name: string, prefix = 'VELLUM_'): string {
  return `${prefix}${name.toUpperCase().replace(/-/g, '_')}`;
}

/** Whether the option collects several values: variadic, or repeatable (an array default its parser adds to). */
function isList(option: Option): boolean {
  return option.variadic || Array.isArray(option.defaultValue);
}

class BadValue extends Error {}

/** One value through the option's choices and parser, as commander does for a flag. */
function parseOne(option: Option, text: string, previous: unknown): unknown {
  if (option.argChoices && !option.argChoices.includes(text)) throw new BadValue(`expected one of ${option.argChoices.join(', ')}`);
  if (option.parseArg) {
    try {
      return option.parseArg(text, previous);
    } catch (error) {
      // commander's InvalidArgumentError, or any error of a parser: its message says what was expected.
      throw new BadValue((error as Error).message);
    }
  }
  if (isList(option)) return [...(Array.isArray(previous) && previous !== option.defaultValue ? previous : []), text];
  return text;
}

function parseItems(option: Option, items: readonly string[]): unknown {
  let value: unknown = option.defaultValue;
  for (const item of items) value = parseOne(option, item, value);
  return value;
}

/** A switch: a flag without a value (`--quiet`, `--no-explorer`). */
function isSwitch(option: Option): boolean {
  return !option.required && !option.optional;
}

function fromEnvironment(option: Option, text: string): unknown {
  if (isSwitch(option)) {
    const word = text.trim().toLowerCase();
    const on = TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
    if (on === undefined) throw new BadValue('expected true or false (or 1/0, yes/no, on/off)');
    return on; // the setting of `--no-explorer` is `explorer`: true keeps the explorer on
  }
  if (isList(option)) {
    const items = text.split(',').map((item) => item.trim());
    if (items.some((item) => item === '')) throw new BadValue('expected comma-separated items, none empty');
    return parseItems(option, items);
  }
  return parseOne(option, text, option.defaultValue);
}

function fromConfigFile(option: Option, value: unknown): unknown {
  if (isSwitch(option)) {
    if (typeof value !== 'boolean') throw new BadValue('expected true or false');
    return value;
  }
  const text = (item: unknown): string => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' && Number.isFinite(item)) return String(item);
    throw new BadValue(`expected a string${isList(option) ? ' or an array of strings' : ''}`);
  };
  if (isList(option)) return parseItems(option, (Array.isArray(value) ? value : [value]).map(text));
  return parseOne(option, text(value), option.defaultValue);
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
}

/** Reads the config file: a JSON object. Throws one line saying what is wrong with it. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readBoundedText(path, MAX_CONFIG_BYTES, `config file ${path}`);
  } catch (error) {
    throw new Error((error as Error).message.startsWith('cannot read') ? (error as Error).message : `cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`config file ${path} must hold one JSON object of settings, such as {"port": 8080}`);
  return parsed as Record<string, unknown>;
}

/**
 * The effective settings of a parsed command: each option's value from its flag, else its environment variable,
 * else the config file, else its default. Call it from the command's action (commander has parsed the flags).
 */
export function resolveSettings(command: Command, options: ResolveOptions = {}): ResolvedSettings {
  const env = options.env ?? process.env;
  const prefix = options.envPrefix ?? 'VELLUM_';
  const exclude = new Set(options.exclude ?? []);
  const configSetting = options.configSetting ?? 'config';
  const errors: string[] = [];
  const values: Record<string, unknown> = { ...command.opts() };

  // The config file: its flag, else its environment variable.
  let file: Record<string, unknown> = {};
  let filePath: string | undefined;
  const configOption = command.options.find((option) => settingName(option) === configSetting);
  if (configOption) {
    const key = configOption.attributeName();
    filePath = (command.getOptionValueSource(key) === 'cli' ? values[key] : env[envName(configSetting, prefix)]) as string | undefined;
    if (filePath !== undefined) {
      values[key] = filePath;
      try {
        file = readConfigFile(filePath);
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
  }

  const settings: Setting[] = [];
  const known = new Set<string>();
  for (const option of command.options) {
    const name = settingName(option);
    const key = option.attributeName();
    if (option.negate && option.long !== undefined && known.has(name)) continue; // `--x` and `--no-x`: one setting
    known.add(name);
    if (exclude.has(name) || name === configSetting || name === 'help' || name === 'version') continue;
    const envNames = [envName(name, prefix), ...(options.envAliases?.[name] ?? [])];
    const setting = (value: unknown, source: SettingSource, origin?: string): void => {
      values[key] = value;
      settings.push({ name, key, envNames, value, source, origin });
    };
    const flagSource = command.getOptionValueSource(key);
    if (flagSource === 'cli') {
      setting(values[key], 'flag', option.long ?? name);
      continue;
    }
    const fromEnv = envNames.find((variable) => env[variable] !== undefined);
    if (fromEnv !== undefined) {
      const text = env[fromEnv]!;
      try {
        setting(fromEnvironment(option, text), 'environment', fromEnv);
      } catch (error) {
        if (!(error instanceof BadValue)) throw error;
        errors.push(`${fromEnv}=${show(text)}: ${error.message}`);
      }
      continue;
    }
    if (Object.hasOwn(file, name)) {
      try {
        setting(fromConfigFile(option, file[name]), 'config file', filePath);
      } catch (error) {
        if (!(error instanceof BadValue)) throw error;
        errors.push(`config file ${filePath}: "${name}": ${show(file[name])}: ${error.message}`);
      }
      continue;
    }
    setting(values[key], 'default');
  }

  const settable = [...known].filter((name) => !exclude.has(name) && name !== configSetting && name !== 'help' && name !== 'version');
  for (const name of Object.keys(file)) {
    if (!settable.includes(name)) {
      errors.push(`config file ${filePath}: "${name}" is not a setting (settings: ${settable.join(', ')})`);
    }
  }

  // Options that may not be used together (commander checks flags only): any two set other than by default.
  const byKey = new Map(settings.map((s) => [s.key, s]));
  for (const option of command.options) {
    const mine = byKey.get(option.attributeName());
    if (!mine || mine.source === 'default') continue;
    for (const otherKey of (option as Option & { conflictsWith?: string[] }).conflictsWith ?? []) {
      const other = byKey.get(otherKey);
      if (!other || other.source === 'default' || (mine.source === 'flag' && other.source === 'flag')) continue;
      errors.push(`${describeOrigin(mine)} cannot be used with ${describeOrigin(other)}`);
    }
  }
  return { values, settings, errors };
}

function describeOrigin(setting: Setting): string {
  if (setting.source === 'flag') return `--${setting.name}`;
  if (setting.source === 'environment') return setting.origin!;
  return `"${setting.name}" (config file ${setting.origin})`;
}

/** Whether a setting holds a secret, by its name: shown as `***`. */
const SECRET_NAME = /(^|-)(key|keys|secret|secrets|password|token|tokens)$/;

/** A value as `--print-config` shows it: secrets masked, and any URL's password. */
export function maskValue(name: string, value: unknown): string {
  if (value === undefined) return '(not set)';
  if (SECRET_NAME.test(name)) return Array.isArray(value) ? `[${value.map(() => '"***"').join(', ')}]` : '"***"';
  const mask = (item: unknown): unknown => (typeof item === 'string' ? maskUrlPassword(item) : item);
  return JSON.stringify(Array.isArray(value) ? value.map(mask) : mask(value));
}

function maskUrlPassword(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    url.password = '***';
    return url.toString();
  } catch {
    return text;
  }
}

/** One line per setting: its name, effective value (secrets masked) and where it came from. */
export function describeSettings(settings: readonly Setting[]): string[] {
  const width = Math.max(...settings.map((s) => s.name.length));
  return settings.map((s) => {
    const from = s.source === 'default' ? 'default' : s.source === 'config file' ? `config file ${s.origin}` : s.source === 'environment' ? `environment ${s.origin}` : `flag ${s.origin}`;
    return `${s.name.padEnd(width)}  ${maskValue(s.name, s.value)}  (${from})`;
  });
}

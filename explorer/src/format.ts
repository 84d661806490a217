// How values and errors look in the page.
import { VellumError } from 'vellum/client';
import { h } from './dom.ts';
import type { StableType } from './schema.ts';

/** A cell's text: strings as they are, a JWK public key as its hex form, anything else as JSON. */
export function valueText(value: unknown, type?: StableType): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (type?.kind === 'publickey' || isJwk(value)) {
    const hex = jwkHex(value);
    if (hex) return hex;
  }
  if (type?.kind === 'foreignrecord' && typeof value === 'object' && value !== null && 'id' in value) return String((value as { id: unknown }).id);
  return JSON.stringify(value);
}

export function shorten(text: string, length = 60): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function isJwk(value: unknown): value is { x: string; y: string } {
  return typeof value === 'object' && value !== null && (value as { kty?: unknown }).kty === 'EC' && typeof (value as { x?: unknown }).x === 'string';
}

/** `0x` + x‖y of a JWK public key, or undefined when it is not one. */
function jwkHex(value: unknown): string | undefined {
  if (!isJwk(value) || typeof value.y !== 'string') return undefined;
  const x = base64urlHex(value.x);
  const y = base64urlHex(value.y);
  return x && y ? `0x${x}${y}` : undefined;
}

function base64urlHex(text: string): string | undefined {
  try {
    const binary = atob(text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/'));
    let hex = '';
    for (let i = 0; i < binary.length; i++) hex += binary.charCodeAt(i).toString(16).padStart(2, '0');
    return hex.length === 64 ? hex : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an error is the service's refusal with this reason. */
export function isReason(error: unknown, reason: VellumError['reason']): boolean {
  return error instanceof VellumError && error.reason === reason;
}

/** The error envelope as the server sent it: status, code, reason and message. */
export function errorBox(error: unknown): HTMLElement {
  if (error instanceof VellumError) {
    return h('div', { class: 'error-box', role: 'alert' },
      h('div', { class: 'error-head' }, h('strong', {}, `${error.status || ''} ${error.code}`), ' ', h('code', {}, error.reason)),
      h('pre', { class: 'error-message' }, error.message));
  }
  return h('div', { class: 'error-box', role: 'alert' }, h('pre', { class: 'error-message' }, (error as Error)?.message ?? String(error)));
}

/**
 * A refusal an unsigned request gets for what only a key may do (create a collection, change a schema): what to
 * do, a button that opens the key menu, and the server's answer a click away.
 */
export function signInNeeded(heading: string, text: string, signIn: () => void, error: unknown): HTMLElement {
  return h('div', { class: 'private-state sign-in-needed', role: 'alert' },
    h('h3', {}, heading),
    h('p', {}, text),
    h('button', { type: 'button', class: 'sign-in', onclick: signIn }, 'Sign in'),
    h('details', { class: 'server-answer' }, h('summary', {}, 'What the server answered'), errorBox(error)));
}

/** A record as indented JSON. */
export function recordJson(record: unknown): HTMLElement {
  return h('pre', { class: 'json' }, JSON.stringify(record, null, 2));
}

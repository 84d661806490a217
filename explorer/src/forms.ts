// A form for a function's parameters (or a constructor's), one input per parameter, chosen by its type, and the
// reading of those inputs into the call's `args` as the wire expects them (docs/runtime.md): numbers as
// numbers, bytes as base64, PublicKey as hex or JWK, a record reference as {collectionId, id}, arrays, maps and
// objects as JSON. A value that does not read is an error naming the parameter and what was expected.
import { h } from './dom.ts';
import { referencedCollectionId, typeText, type CollectionInfo, type Parameter } from './schema.ts';
import type { SigningKey } from './key.ts';

export class FormError extends Error {}

interface Input {
  parameter: Parameter;
  control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
}

export interface ParameterForm {
  element: HTMLElement;
  /** The args, in parameter order; trailing optional parameters left empty are left out. */
  read(): unknown[];
}

export function parameterForm(info: CollectionInfo, parameters: readonly Parameter[], key: () => SigningKey | undefined, idPrefix: string): ParameterForm {
  const inputs: Input[] = [];
  const rows = parameters.map((parameter) => {
    const id = `${idPrefix}-${parameter.name}`;
    const control = controlFor(parameter, id);
    inputs.push({ parameter, control });
    const useKey =
      parameter.type.kind === 'publickey'
        ? h('button', { type: 'button', class: 'small', title: 'fill in the public key of the key held in this page', onclick: () => {
            const current = key();
            if (current) control.value = current.publicKeyHex;
            else control.setCustomValidity('no key yet: generate or paste one at the top of the page');
            control.reportValidity();
          } }, 'my key')
        : null;
    return h('div', { class: 'param' },
      h('label', { for: id }, parameter.name, parameter.required ? '' : '?', h('span', { class: 'param-type' }, typeText(parameter.type))),
      h('div', { class: 'param-input' }, control, useKey));
  });
  return {
    element: h('div', { class: 'param-form' }, ...(rows.length > 0 ? rows : [h('p', { class: 'muted' }, 'no parameters')])),
    read: () => {
      for (const { control } of inputs) control.setCustomValidity('');
      const values = inputs.map(({ parameter, control }) => {
        try {
          return readValue(info, parameter, control.value);
        } catch (error) {
          control.setCustomValidity((error as Error).message);
          throw new FormError(`${parameter.name}: ${(error as Error).message}`);
        }
      });
      while (values.length > 0 && values[values.length - 1] === undefined) values.pop();
      // A middle optional parameter left empty is sent as null: the wire's "no value" for a position.
      return values.map((value) => (value === undefined ? null : value));
    },
  };
}

function controlFor(parameter: Parameter, id: string): Input['control'] {
  const type = parameter.type;
  const name = parameter.name;
  switch (type.kind) {
    case 'primitive':
      if (type.value === 'boolean') {
        return h('select', { id, name }, ...(parameter.required ? [] : [h('option', { value: '' }, '(none)')]), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
      }
      return h('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: type.value === 'bytes' ? 'base64' : type.value, inputmode: type.value === 'number' ? 'decimal' : undefined });
    case 'publickey':
      return h('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: '0x… (128 hex digits) or a JWK' });
    case 'foreignrecord':
      return h('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: `id of a ${type.collection} record` });
    case 'record':
      return h('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: '{"collectionId": "ns/Name", "id": "…"}' });
    case 'array':
    case 'map':
    case 'object':
      return h('textarea', { id, name, rows: 2, spellcheck: 'false', placeholder: type.kind === 'array' ? '[…] (JSON)' : '{…} (JSON)' });
  }
}

function readValue(info: CollectionInfo, parameter: Parameter, text: string): unknown {
  const type = parameter.type;
  const blank = text.trim() === '';
  // An empty string is a string; for every other type an empty input is "not given".
  if (blank && !(type.kind === 'primitive' && type.value === 'string' && parameter.required)) {
    if (parameter.required) throw new Error(`required: expected ${typeText(type)}`);
    return undefined;
  }
  switch (type.kind) {
    case 'primitive':
      switch (type.value) {
        case 'string':
          return text;
        case 'number': {
          const number = Number(text.trim());
          if (!Number.isFinite(number)) throw new Error(`expected a number, got ${JSON.stringify(text)}`);
          return number;
        }
        case 'boolean':
          return text === 'true';
        case 'bytes':
          if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.trim()) || text.trim().length % 4 !== 0) throw new Error('expected standard padded base64');
          return text.trim();
      }
      break;
    case 'publickey': {
      const trimmed = text.trim();
      if (/^0x[0-9a-fA-F]{128}$/.test(trimmed)) return trimmed;
      return parseJson(trimmed, 'a public key: 0x and 128 hex digits, or a JWK object');
    }
    case 'foreignrecord':
      return { collectionId: referencedCollectionId(info, type.collection), id: text.trim() };
    case 'record':
      return parseJson(text, 'a record reference {"collectionId": …, "id": …}');
    case 'array':
    case 'map':
    case 'object':
      return parseJson(text, `${typeText(type)} as JSON`);
  }
  return text;
}

function parseJson(text: string, expected: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`expected ${expected}: ${(error as Error).message}`);
  }
}

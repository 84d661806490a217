// The key panel: generate a key, paste one, or import one from a file; the page signs requests with it. The
// private key stays in this page: it is never sent anywhere (only signatures are), and it is kept in the
// browser's localStorage only when "remember" is ticked, so it survives a reload.
import { h, replaceChildren } from './dom.ts';
import { generateKey, keyFromText, type SigningKey } from './key.ts';

const STORAGE_ITEM = 'vellum-explorer:private-key';

export class KeyPanel {
  readonly element = h('section', { class: 'key-panel', 'aria-label': 'signing key' });
  #key: SigningKey | undefined;
  #remember = false;
  #message = '';

  constructor() {
    const stored = readStorage();
    if (stored) {
      try {
        this.#key = keyFromText(stored);
        this.#remember = true;
      } catch {
        removeStorage();
      }
    }
    this.render();
  }

  get key(): SigningKey | undefined {
    return this.#key;
  }

  private use(key: SigningKey | undefined, message = ''): void {
    this.#key = key;
    this.#message = message;
    this.store();
    this.render();
  }

  private store(): void {
    if (this.#remember && this.#key) writeStorage(this.#key.privateKeyHex);
    else removeStorage();
  }

  private render(): void {
    const key = this.#key;
    const remember = h('input', { type: 'checkbox', id: 'remember-key', checked: this.#remember, onchange: (event: Event) => {
      this.#remember = (event.target as HTMLInputElement).checked;
      this.store();
    } });
    const status = key
      ? h('div', { class: 'key-status' }, 'Signing as ', h('input', { class: 'key-hex', id: 'public-key', readonly: true, value: key.publicKeyHex, 'aria-label': 'public key', title: 'public key (hex): use it in where filters and PublicKey parameters' }))
      : h('div', { class: 'key-status muted' }, 'No key: requests are unsigned (ctx.publicKey is absent).');
    const pasted = h('input', { type: 'password', id: 'paste-key', placeholder: 'paste a private key (0x + 64 hex)', autocomplete: 'off', spellcheck: 'false' });
    const file = h('input', { type: 'file', id: 'import-key', accept: '.txt,.key,.json,text/plain,application/json', class: 'hidden', onchange: () => void this.importFile(file) });
    replaceChildren(this.element,
      status,
      h('div', { class: 'key-actions' },
        h('button', { type: 'button', id: 'generate-key', onclick: () => this.use(generateKey(), 'New key generated. Tick "remember" or keep a copy (show) to sign as it again later.') }, 'Generate key'),
        h('form', { class: 'inline', onsubmit: (event: Event) => {
          event.preventDefault();
          this.fromText(pasted.value);
        } }, pasted, h('button', { type: 'submit' }, 'Use')),
        h('button', { type: 'button', onclick: () => file.click() }, 'Import file…'), file,
        key ? h('button', { type: 'button', onclick: (event: Event) => {
          const button = event.target as HTMLButtonElement;
          const shown = button.textContent === 'Hide';
          button.textContent = shown ? 'Show private key' : 'Hide';
          this.#message = shown ? '' : `Private key: ${key.privateKeyHex}`;
          this.renderMessage();
        } }, 'Show private key') : null,
        key ? h('button', { type: 'button', onclick: () => this.use(undefined) }, 'Forget') : null,
        h('label', { class: 'remember', for: 'remember-key', title: 'keep the private key in this browser\'s localStorage' }, remember, 'remember in this browser')),
      h('div', { class: 'key-message', id: 'key-message', role: 'status' }));
    this.renderMessage();
  }

  private renderMessage(): void {
    const box = this.element.querySelector('#key-message');
    if (box) box.textContent = this.#message;
  }

  private fromText(text: string): void {
    try {
      this.use(keyFromText(text), 'Key loaded.');
    } catch (error) {
      this.#message = `Not a key: ${(error as Error).message}`;
      this.renderMessage();
    }
  }

  private async importFile(input: HTMLInputElement): Promise<void> {
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > 10_000) {
      this.#message = `Not a key: ${file.name} is ${file.size} bytes; a key file holds 64 hex digits`;
      this.renderMessage();
      return;
    }
    this.fromText(await file.text());
  }
}

// Storage can be unavailable (private windows, blocked storage): the key then lives in the page alone.
function readStorage(): string | null {
  try {
    return localStorage.getItem(STORAGE_ITEM);
  } catch {
    return null;
  }
}

function writeStorage(value: string): void {
  try {
    localStorage.setItem(STORAGE_ITEM, value);
  } catch {
    // See readStorage.
  }
}

function removeStorage(): void {
  try {
    localStorage.removeItem(STORAGE_ITEM);
  } catch {
    // See readStorage.
  }
}

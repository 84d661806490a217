// The key panel: who the page signs as, in one line (the public key short, with a copy button), and a "Key" menu
// to generate a key, paste one, import one from a file, show the private key, forget it, or remember it. The
// private key stays in this page: it is never sent anywhere (only signatures are), and it is kept in the
// browser's localStorage only when "remember" is ticked, so it survives a reload. A change of key is announced
// (`onChange`), so what is shown is read again as the new key.
import { h, replaceChildren } from './dom.ts';
import { generateKey, keyFromText, shortKey, type SigningKey } from './key.ts';

const STORAGE_ITEM = 'vellum-explorer:private-key';

export class KeyPanel {
  readonly element = h('section', { class: 'key-panel', 'aria-label': 'signing key' });
  /** Called after the key in use changed (to another, or to none). */
  onChange: (key: SigningKey | undefined) => void = () => {};
  #key: SigningKey | undefined;
  #remember = false;
  #message = '';
  #menu: HTMLDetailsElement | undefined;

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

  /** Opens the key menu with its first control focused: "sign in". */
  open(): void {
    if (!this.#menu) return;
    this.#menu.open = true;
    this.#menu.querySelector<HTMLElement>('#generate-key')?.focus();
  }

  /** Signs as `key` from now on (none: unsigned); the menu folds away, the line beside it says who signs. */
  private use(key: SigningKey | undefined): void {
    const changed = key?.privateKeyHex !== this.#key?.privateKeyHex;
    this.#key = key;
    this.#message = '';
    this.store();
    if (this.#menu) this.#menu.open = false;
    this.render();
    if (changed) this.onChange(key);
  }

  private store(): void {
    if (this.#remember && this.#key) writeStorage(this.#key.privateKeyHex);
    else removeStorage();
  }

  private render(): void {
    const key = this.#key;
    const wasOpen = this.#menu?.open ?? false;
    const remember = h('input', { type: 'checkbox', id: 'remember-key', checked: this.#remember, onchange: (event: Event) => {
      this.#remember = (event.target as HTMLInputElement).checked;
      this.store();
    } });
    const status = key
      ? h('div', { class: 'key-status' },
        h('span', { class: 'key-label' }, 'Signed in as'),
        h('code', { class: 'key-hex', id: 'public-key', 'data-key': key.publicKeyHex, title: `${key.publicKeyHex}\n(public key, hex: use it in where filters and PublicKey parameters)` }, shortKey(key.publicKeyHex)),
        copyButton(key.publicKeyHex, 'copy-key', 'Copy the public key'))
      : h('div', { class: 'key-status muted' }, h('span', { class: 'key-label' }, 'Not signed in'), h('span', { class: 'key-hint' }, '(requests go unsigned)'));
    const pasted = h('input', { type: 'password', id: 'paste-key', placeholder: 'paste a private key (0x + 64 hex)', 'aria-label': 'private key to use', autocomplete: 'off', spellcheck: 'false' });
    const file = h('input', { type: 'file', id: 'import-key', accept: '.txt,.key,.json,text/plain,application/json', class: 'hidden', onchange: () => void this.importFile(file) });
    const menu = h('details', { class: 'key-menu', id: 'key-menu' },
      h('summary', { id: 'key-menu-toggle' }, key ? 'Key' : 'Sign in'),
      h('div', { class: 'key-menu-body' },
        h('button', { type: 'button', id: 'generate-key', onclick: () => this.use(generateKey()) }, 'Generate a new key'),
        h('form', { class: 'inline', onsubmit: (event: Event) => {
          event.preventDefault();
          this.fromText(pasted.value);
        } }, pasted, h('button', { type: 'submit' }, 'Use')),
        h('button', { type: 'button', id: 'import-key-file', onclick: () => file.click() }, 'Import a key file…'), file,
        key ? h('div', { class: 'key-row' },
          h('button', { type: 'button', id: 'show-private-key', onclick: (event: Event) => {
            const button = event.target as HTMLButtonElement;
            const shown = button.textContent === 'Hide private key';
            button.textContent = shown ? 'Show private key' : 'Hide private key';
            this.#message = shown ? '' : `Private key: ${key.privateKeyHex}`;
            this.renderMessage();
          } }, 'Show private key'),
          h('button', { type: 'button', id: 'forget-key', onclick: () => this.use(undefined) }, 'Forget')) : null,
        h('label', { class: 'remember', for: 'remember-key', title: 'keep the private key in this browser\'s localStorage' }, remember, 'remember in this browser'),
        h('p', { class: 'key-note' }, 'The private key never leaves this page. Without "remember", keep a copy of it (Show private key) to sign as it again after a reload.'),
        h('div', { class: 'key-message', id: 'key-message', role: 'status' })));
    menu.open = wasOpen;
    this.#menu = menu;
    replaceChildren(this.element, status, menu);
    this.renderMessage();
  }

  private renderMessage(): void {
    const box = this.element.querySelector('#key-message');
    if (box) box.textContent = this.#message;
  }

  private fromText(text: string): void {
    try {
      this.use(keyFromText(text));
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

/** A button that copies `text` (a key, an id) and says so; where the clipboard is refused, it says that instead. */
export function copyButton(text: string, id: string | undefined, label: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'copy', id, title: label, 'aria-label': label, onclick: () => {
    (navigator.clipboard?.writeText(text) ?? Promise.reject(new Error('no clipboard'))).then(
      () => (button.textContent = 'Copied'),
      () => (button.textContent = 'Copy refused'),
    ).finally(() => setTimeout(() => (button.textContent = 'Copy'), 1500));
  } }, 'Copy');
  return button;
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

// Ethereum personal-sign hashing (EIP-191 version 0x45) of a signed request's message `<t>.<body>`:
// keccak256("\x19Ethereum Signed Message:\n" + <decimal byte length of the message> + <message>).
import { keccak_256 } from './noble.ts';

const encoder = new TextEncoder();

/** The message a request signature covers: the timestamp's decimal digits, a dot, then the exact body bytes. */
export function requestMessage(t: number, body: string | Uint8Array): Uint8Array {
  return concat(encoder.encode(`${t}.`), typeof body === 'string' ? encoder.encode(body) : body);
}

/** keccak256 of the message with the Ethereum personal-sign prefix: the 32-byte digest that is signed. */
export function personalSignHash(message: Uint8Array): Uint8Array {
  return keccak_256(concat(encoder.encode(`\x19Ethereum Signed Message:\n${message.length}`), message));
}

/** The digest a request signature with timestamp `t` over `body` signs. */
export function requestHash(t: number, body: string | Uint8Array): Uint8Array {
  return personalSignHash(requestMessage(t, body));
}

// One contiguous input: a single keccak call over it is markedly faster than streaming the parts.
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

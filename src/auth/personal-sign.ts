// Ethereum personal-sign hashing (EIP-191 version 0x45) of a signed request's message `<t>.<body>`:
// keccak256("\x19Ethereum Signed Message:\n" + <decimal byte length of the message> + <message>).
import { keccak_256 } from '@noble/hashes/sha3.js';

const encoder = new TextEncoder();

/** The message a request signature covers: the timestamp's decimal digits, a dot, then the exact body bytes. */
export function requestMessage(t: number, body: string | Uint8Array): Uint8Array {
  const head = encoder.encode(`${t}.`);
  const bodyBytes = typeof body === 'string' ? encoder.encode(body) : body;
  const message = new Uint8Array(head.length + bodyBytes.length);
  message.set(head);
  message.set(bodyBytes, head.length);
  return message;
}

/** keccak256 of the message with the Ethereum personal-sign prefix: the 32-byte digest that is signed. */
export function personalSignHash(message: Uint8Array): Uint8Array {
  const prefix = encoder.encode(`\x19Ethereum Signed Message:\n${message.length}`);
  return keccak_256.create().update(prefix).update(message).digest();
}

/** The digest a request signature with timestamp `t` over `body` signs. */
export function requestHash(t: number, body: string | Uint8Array): Uint8Array {
  return personalSignHash(requestMessage(t, body));
}

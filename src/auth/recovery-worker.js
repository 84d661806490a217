// A worker thread of the RecoveryPool (recovery-pool.ts): hashes a signed request's message and recovers the
// signer's key, the two costly steps of verification, so the thread that answers requests never runs them.
// Plain JavaScript, because a worker thread starts without the TypeScript loader of its parent.
//
// Message in, for n jobs: `{ times, bodies, signatures }`: n timestamps, n bodies (strings or bytes), and one
// Uint8Array of n × 65 bytes, each r ‖ s ‖ recovery id (0 or 1).
// Message out: one Uint8Array of n × 97 bytes, each the 32-byte personal-sign digest then the signer's 65-byte
// uncompressed key, whose first byte is 0 instead of 4 when no key can be recovered. Few, flat buffers: a
// message's cost grows with the number of objects in it. The hash is personal-sign.ts's `requestHash`;
// test/auth/recovery-pool.test.ts checks that both agree.

import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

const encoder = new TextEncoder();

/** keccak256("\x19Ethereum Signed Message:\n" + length + "<t>." + body), as personal-sign.ts computes it. */
function requestHash(t, body) {
  const message = Buffer.concat([encoder.encode(`${t}.`), typeof body === 'string' ? encoder.encode(body) : body]);
  return keccak_256(Buffer.concat([encoder.encode(`\x19Ethereum Signed Message:\n${message.length}`), message]));
}

function backend(name) {
  if (name === 'native') {
    const binding = createRequire(import.meta.url)('secp256k1/bindings.js');
    return (compact, recoveryId, hash) => binding.ecdsaRecover(compact, recoveryId, hash, false);
  }
  return (compact, recoveryId, hash) =>
    secp256k1.Signature.fromBytes(compact, 'compact').addRecoveryBit(recoveryId).recoverPublicKey(hash).toBytes(false);
}

const recover = backend(workerData.backend);

parentPort.on('message', ({ times, bodies, signatures }) => {
  const answers = new Uint8Array(times.length * 97);
  for (let i = 0; i < times.length; i++) {
    const hash = requestHash(times[i], bodies[i]);
    answers.set(hash, i * 97);
    try {
      answers.set(recover(signatures.subarray(i * 65, i * 65 + 64), signatures[i * 65 + 64], hash), i * 97 + 32);
    } catch {
      // No key for this signature (its first byte stays 0): the caller reports it as a typed AuthError.
    }
  }
  parentPort.postMessage(answers, [answers.buffer]);
});

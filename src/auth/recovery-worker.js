// A worker thread of the RecoveryPool (recovery-pool.ts): hashes a signed request's message and recovers the
// signer's key, the two costly steps of verification, so the thread that answers requests never runs them.
// Plain JavaScript, because a worker thread starts without the TypeScript loader of its parent.
//
// Message in: an array of jobs `{ t, body, compact, recoveryId }` (body a string or bytes, compact r ‖ s).
// Message out: an array of the same length, each `{ hash, key }`: the 32-byte personal-sign digest and the
// signer's 65-byte uncompressed key, or `key: null` when no key can be recovered. The hash is the one of
// personal-sign.ts (`requestHash`); test/auth/recovery-pool.test.ts checks that both agree.

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

parentPort.on('message', (jobs) => {
  const answers = jobs.map(({ t, body, compact, recoveryId }) => {
    const hash = requestHash(t, body);
    let key = null;
    try {
      key = recover(compact, recoveryId, hash);
    } catch {
      // No key for this signature: the caller reports it as a typed AuthError.
    }
    return { hash, key };
  });
  parentPort.postMessage(answers);
});

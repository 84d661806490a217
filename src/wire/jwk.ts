// The JWK form of a secp256k1 public key, on its own so that code which must run in browsers (src/client) can name
// it without loading public-key.ts (Buffer, the curve arithmetic).

/** The JWK form Polybase uses: `x` and `y` are base64url WITH `=` padding. */
export interface PublicKeyJwk {
  alg: 'ES256K';
  crv: 'secp256k1';
  kty: 'EC';
  use: 'sig';
  x: string;
  y: string;
}

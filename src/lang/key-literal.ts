// Whether the bytes of an `eth#0x…` key literal are a point of secp256k1 (y² = x³ + 7 over its prime field):
// checked when the schema is checked, so a mistyped key is an error rather than a key that matches no one.

const P = 2n ** 256n - 2n ** 32n - 977n;

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base % P;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

/** `hex`: 33 (02/03 and x), 65 (04, x and y) or 64 (x and y) bytes. */
export function isCurvePoint(hex: string): boolean {
  const bytes = hex.length / 2;
  const prefix = hex.slice(0, 2);
  if (bytes === 33 && prefix !== '02' && prefix !== '03') return false;
  if (bytes === 65 && prefix !== '04') return false;
  const body = bytes === 64 ? hex : hex.slice(2);
  const x = BigInt(`0x${body.slice(0, 64)}`);
  if (x >= P) return false;
  const rhs = (power(x, 3n) + 7n) % P;
  if (bytes === 33) return rhs === 0n || power(rhs, (P - 1n) / 2n) === 1n;
  const y = BigInt(`0x${body.slice(64)}`);
  return y < P && (y * y) % P === rhs;
}

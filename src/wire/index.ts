// What the service and its clients agree on over the wire, shared by the server (src/store, src/auth) and the
// browser client (src/client): the where language's operators and limits, and the JWK form of a public key. Its
// files import nothing, so the client, bundled for browsers and installed alone as @vellum/client, brings no
// server code with it.
export { WHERE_LIMITS, WHERE_OPERATORS, WHERE_OPERATOR_NAMES, type WhereOperator } from './where-operators.ts';
export type { PublicKeyJwk } from './jwk.ts';

// A request's log line: the JSON line pino would write for a request's entry (log.ts's logRequest), made by hand
// from its fields because pino's generic serializer cost a get about as much again as the line itself
// (bench/README.md, "http-log"); test/service/log-format.test.ts checks it against pino's own line.

/** One request's entry (see log.ts's comment). */
export interface RequestEntry {
  reqId: string;
  method: string;
  url: string;
  route: string | undefined;
  status: number;
  ms: number;
  client: string | undefined;
  signer?: string;
  reason?: string;
}

/**
 * The level a request's entry is logged at, by its status: 503 is the service saying it cannot serve now (not
 * ready, draining, too many streams, the database away), a warning; any other 5xx is an error; the rest info.
 */
export function requestLevel(status: number): 'info' | 'warn' | 'error' {
  return status === 503 ? 'warn' : status >= 500 ? 'error' : 'info';
}

/**
 * A request entry's line, logged at `time` (ms since the epoch): its level by name (requestLevel), the time, then
 * the entry's fields in order, an undefined one left out.
 */
export function requestLine(entry: RequestEntry, time: number): string {
  const level = requestLevel(entry.status);
  let line = `{"level":"${level}","time":${timeText(time)},"reqId":"${jsonInner(entry.reqId)}","method":"${recurringJsonInner(entry.method)}","url":"${jsonInner(entry.url)}"`;
  if (entry.route !== undefined) line += `,"route":"${recurringJsonInner(entry.route)}"`;
  line += `,"status":${entry.status},"ms":${hundredthsText(entry.ms)}`;
  if (entry.client !== undefined) line += `,"client":"${recurringJsonInner(entry.client)}"`;
  if (entry.signer !== undefined) line += `,"signer":"${jsonInner(entry.signer)}"`;
  if (entry.reason !== undefined) line += `,"reason":"${recurringJsonInner(entry.reason)}"`;
  return `${line},"msg":"request"}\n`;
}

let lastTime = Number.NaN;
let lastTimeText = '';

/** `String(time)`, made once per millisecond: lines in the same millisecond share it. */
function timeText(time: number): string {
  if (time !== lastTime) {
    lastTime = time;
    lastTimeText = integerText(time);
  }
  return lastTimeText;
}

/**
 * `String(n)`, made without formatting a double for an integer 1e6 <= n < 1e15 such as a time in ms (past 2^31,
 * String runs V8's shortest-digits search, about 0.5 µs): from its millions and the rest, small integers whose
 * text is quick. (Under 1e15 the millions are under 2^30, so the division's rounding never reaches the next one.)
 */
export function integerText(n: number): string {
  if (!(n >= 1e6 && n < 1e15 && n % 1 === 0)) return String(n);
  const high = Math.floor(n / 1e6);
  return `${high}${String(n - high * 1e6).padStart(6, '0')}`;
}

/** The text after the whole part of i / 100 for i in 0-99, as JavaScript writes the number: '', '.01', ..., '.1', ..., '.99'. */
const FRACTIONS = Array.from({ length: 100 }, (_, i) => (i === 0 ? '' : String(i / 100).slice(1)));

/**
 * `String(Math.round(ms * 100) / 100)` (a duration to 0.01 ms), made from the whole part, a small integer whose
 * text V8 caches, and a fraction's text from FRACTIONS, rather than by formatting a double (about 950 instructions a
 * line under callgrind). The shortest digits that read back as the double are these as long as doubles lie closer
 * together than 0.01, far beyond 2^31 hundredths; past that (over 5 hours) it is String's own.
 */
export function hundredthsText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (!(hundredths >= 0 && hundredths < 2 ** 31)) return String(hundredths / 100);
  const whole = Math.floor(hundredths / 100);
  return `${whole}${FRACTIONS[hundredths - whole * 100]}`;
}

/** Printable ASCII but `"` and `\`: the characters a JSON string holds as they are. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `text` as a JSON string, the same as JSON.stringify(text): a plain text (PLAIN_JSON, which every URL, route, id
 * and address of an ordinary request is) is quoted as it is, which costs a third of JSON.stringify; any other goes
 * through JSON.stringify.
 */
export function jsonString(text: string): string {
  return `"${jsonInner(text)}"`;
}

/** What goes between a JSON string's quotes for `text` (jsonString): a plain text itself, without a new string. */
function jsonInner(text: string): string {
  return PLAIN_JSON.test(text) ? text : JSON.stringify(text).slice(1, -1);
}

/** The longest text recurringJsonInner remembers: an IPv6 address with its zone fits, and so does every route. */
const RECURRING_MAX_LENGTH = 100;
/** The most texts recurringJsonInner remembers at once. */
export const RECURRING_MEMO_SIZE = 256;
const recurringInners = new Map<string, string>();

/**
 * jsonInner of a text that recurs from request to request (the method, the route's pattern, the client's address,
 * an error's reason), remembered: a Map lookup of a string whose hash V8 keeps costs less than the PLAIN_JSON test.
 * At most RECURRING_MEMO_SIZE texts of at most RECURRING_MAX_LENGTH characters are kept: when full, the memo is
 * emptied and starts again, so a flood of distinct addresses costs each the test, as without the memo, and holds
 * little memory. A longer text is tested each time.
 */
export function recurringJsonInner(text: string): string {
  if (text.length > RECURRING_MAX_LENGTH) return jsonInner(text);
  let inner = recurringInners.get(text);
  if (inner === undefined) {
    inner = jsonInner(text);
    if (recurringInners.size >= RECURRING_MEMO_SIZE) recurringInners.clear();
    recurringInners.set(text, inner);
  }
  return inner;
}

// Server-Sent Events read from a fetch response body. The explorer cannot use EventSource: it sends no custom
// headers, and a read is signed in X-Polybase-Signature so that read permissions apply to the events.

export interface ServerEvent {
  /** The `event:` field (`message` when absent). */
  event: string;
  data: string;
  /** The `id:` field, when the event has one. */
  id?: string;
}

/** The most text one event may hold: a larger one (a huge record) ends the stream with an error, not a hang. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** The events of an SSE body, in order, until it ends. Comment lines (keep-alives) are skipped. */
export async function* serverEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  // A chunk ended in CR: a line end already (so an event it closes is not held back until more bytes come, or
  // lost when the stream ends there), but an LF opening the next chunk belongs to it.
  let afterCR = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      let text = decoder.decode(value, { stream: true });
      if (text === '') continue;
      if (afterCR && text.startsWith('\n')) text = text.slice(1);
      afterCR = text.endsWith('\r');
      buffer += text.replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block);
        if (event) yield event;
      }
      if (buffer.length > MAX_EVENT_CHARS) throw new Error(`an event of the stream is longer than ${MAX_EVENT_CHARS} characters`);
    }
  } finally {
    reader.releaseLock();
  }
}

/** One event block's fields (the SSE format: `field: value` lines); null for a block of comments only. */
export function parseEvent(block: string): ServerEvent | null {
  let event = 'message';
  const data: string[] = [];
  let id: string | undefined;
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields++;
    if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
    else if (name === 'id') id = value;
  }
  if (fields === 0) return null;
  return id === undefined ? { event, data: data.join('\n') } : { event, data: data.join('\n'), id };
}

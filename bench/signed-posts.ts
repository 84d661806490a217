// Prepared POSTs for autocannon, served in order: each signature is used once, as the service requires (a post
// without a header goes unsigned: each create needs a new id). Used by bench/http-thread.ts in its own thread
// and by bench/load-driver.ts in a process of its own.
import type autocannon from 'autocannon';

export interface Post {
  path: string;
  body: string;
  /** The signature header; none: an unsigned request. */
  header?: string;
}

export function signedPosts(items: readonly Post[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const item = items[next++ % items.length]!;
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (item.header !== undefined) headers['x-polybase-signature'] = item.header;
        return { ...request, path: item.path, body: item.body, headers };
      },
    },
  ];
}

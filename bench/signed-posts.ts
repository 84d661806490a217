// Pre-signed POSTs for autocannon, served in order: each signature is used once, as the service requires. Used
// by bench/http.ts in its own thread and by bench/load-driver.ts in a process of its own.
import type autocannon from 'autocannon';

export interface Post {
  path: string;
  body: string;
  header: string;
}

export function signedPosts(items: readonly Post[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const item = items[next++ % items.length]!;
        return { ...request, path: item.path, body: item.body, headers: { 'content-type': 'application/json', 'x-polybase-signature': item.header } };
      },
    },
  ];
}

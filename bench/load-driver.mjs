// The load generator of `npm run bench -- http-process` (bench/http.ts), in a process of its own: autocannon's
// work (building requests, parsing answers) then runs beside the server instead of in its thread, as it would
// from another terminal. Plain JavaScript, so that it starts without a TypeScript loader.
// Each message is one load run, { settings, posts? }, answered with { result } or { error }. `posts` are
// pre-signed requests, each sent once, in order (as `signedPosts` in bench/http.ts).
import autocannon from 'autocannon';

function signedPosts(posts) {
  let next = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const post = posts[next++ % posts.length];
        return { ...request, path: post.path, body: post.body, headers: { 'content-type': 'application/json', 'x-polybase-signature': post.header } };
      },
    },
  ];
}

process.on('message', async ({ settings, posts }) => {
  try {
    const result = await autocannon(posts ? { ...settings, requests: signedPosts(posts) } : settings);
    const { requests, latency, duration, errors, timeouts, non2xx } = result;
    process.send({ result: { requests, latency, duration, errors, timeouts, non2xx } });
  } catch (error) {
    process.send({ error: String(error) });
  }
});

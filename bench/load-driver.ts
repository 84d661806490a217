// The load generator of `npm run bench -- http` and `http-process` (started by bench/load-client.ts), in a
// process of its own: autocannon's work (building requests, parsing answers) then runs beside the server instead
// of in its thread, as it would from another terminal. Each message is one load run, { settings, posts? },
// answered with { result } or { error }. `posts` are prepared requests, each sent once, in order.
import autocannon from 'autocannon';
import { signedPosts, type Post } from './signed-posts.ts';

process.on('message', async ({ settings, posts }: { settings: autocannon.Options; posts?: Post[] }) => {
  try {
    const result = await autocannon(posts ? { ...settings, requests: signedPosts(posts) } : settings);
    const { requests, latency, duration, errors, timeouts, non2xx } = result;
    process.send!({ result: { requests, latency, duration, errors, timeouts, non2xx } });
  } catch (error) {
    process.send!({ error: String(error) });
  }
});

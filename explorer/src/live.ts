// Live updates of a list. First choice: the query's push stream, a vellum/client subscription (`stream=1`), which
// sends an event only when a record enters, changes in or leaves the caller's readable result; at the last event
// of each commit (the one with the commit's timestamp) the page shown is read again (a page is a window of the
// result, with cursors, so it is re-read rather than patched from the events). The subscription itself reconnects
// when the connection drops and resumes after the last event it saw.
// Fallback, when the server refuses the stream for this query (a result of more than 1,000 records, or a server
// without streams) or ends it with an error event: a long-poll loop (`waitForList` from the last answer's
// timestamp) that wakes on any change to the collection. One per view, stopped (its requests aborted) when the
// view or its query changes. A view that reads its pages its own way (with expanded references) gives its reader
// (`read`): the page is read again through it, and a long-poll's answer (a plain page) only says when to read.
import type { VellumError } from 'vellum/client';
import type { AnyCollection, ListPage, ListQuery } from './connection.ts';

const WAIT_FOR = '30s';
const RETRY_MS = 3000;

export type LiveMode = 'stream' | 'long-poll';

export class LiveList<P extends ListPage = ListPage> {
  readonly #stopper = new AbortController();
  /** The timestamp the page shown is up to date as of: where a stream or long-poll goes on from. */
  #since = '';
  /** Only the latest re-read is shown: a slower earlier one must not overwrite it. */
  #reads = 0;

  constructor(
    private readonly collection: AnyCollection,
    private readonly query: ListQuery,
    private readonly onAnswer: (page: P) => void,
    private readonly onError: (error: unknown) => void,
    private readonly onMode: (mode: LiveMode, why?: string) => void = () => {},
    private readonly read?: (request: ListQuery & { signal: AbortSignal }) => Promise<P>,
  ) {}

  start(since: string): void {
    this.#since = since;
    void this.#run();
  }

  stop(): void {
    this.#stopper.abort();
  }

  get stopped(): boolean {
    return this.#stopper.signal.aborted;
  }

  async #run(): Promise<void> {
    const signal = this.#stopper.signal;
    this.onMode('stream');
    const refusal = await this.#follow();
    if (signal.aborted) return;
    // Refused for this query, or ended by an error event: long-polls serve every query a list serves.
    this.onMode('long-poll', refusal?.reason);
    while (!signal.aborted) {
      try {
        const page = await this.collection.waitForList(this.#since, { ...this.query, waitFor: WAIT_FOR, signal });
        if (page) {
          if (page.timestamp) this.#since = page.timestamp;
          if (this.read) await this.#reread();
          else this.onAnswer(page as P);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.onError(error);
        // A server that is down or restarting: try again a little later rather than in a tight loop.
        await pause(RETRY_MS, signal);
      }
    }
  }

  /** Follows the push stream until it is stopped (undefined) or ends for good (the service's error). */
  #follow(): Promise<VellumError | undefined> {
    return new Promise((resolve) => {
      let changed = false;
      let interrupted = false;
      const subscription = this.collection.subscribe(
        (event) => {
          // Connected again after a drop: the stream follows the page once more.
          if (event.type === 'ready' && interrupted) {
            interrupted = false;
            this.onMode('stream');
          }
          if (event.type !== 'ready') changed = true;
          if (event.timestamp === undefined) return;
          this.#since = event.timestamp;
          if (changed) {
            changed = false;
            void this.#reread();
          }
        },
        {
          where: this.query.where,
          sort: this.query.sort,
          since: this.#since,
          signal: this.#stopper.signal,
          onError: resolve,
          // A dropped connection: said, while the subscription reconnects by itself.
          onRetry: (_delay, cause) => {
            interrupted = true;
            this.onError(cause ?? new Error('the server ended the stream'));
          },
        },
      );
      void subscription.done.then(() => resolve(undefined));
    });
  }

  /** The page itself, with its limit and cursor, read again after a commit changed its result. */
  async #reread(): Promise<void> {
    const read = ++this.#reads;
    try {
      const request = { ...this.query, signal: this.#stopper.signal };
      const page = this.read ? await this.read(request) : ((await this.collection.list(request)) as P);
      if (read === this.#reads && !this.stopped) this.onAnswer(page);
    } catch (error) {
      if (!this.stopped && read === this.#reads) this.onError(error);
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

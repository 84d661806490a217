// Live updates of a list. First choice: the query's push stream (`stream=1`, Server-Sent Events), which sends an
// event only when a record enters, changes in or leaves the caller's readable result; after each commit's events
// the page shown is read again (a page is a window of the result, with cursors, so it is re-read rather than
// patched from the events). The stream resumes after the last event id it saw when the connection drops.
// Fallback, when the server refuses the stream for this query (a result of more than 1,000 records, or a server
// without streams) or ends it with an error event: a long-poll loop (`since` = the last answer's
// X-Service-Timestamp) that wakes on any change to the collection. One loop per view, stopped when the view or
// its query changes.
import { ApiError, type Api, type ErrorEnvelope, type ListAnswer, type ListQuery } from './api.ts';
import { serverEvents } from './sse.ts';

const WAIT_FOR = '30s';
const RETRY_MS = 3000;

export type LiveMode = 'stream' | 'long-poll';

export class LiveList {
  private readonly stopper = new AbortController();
  /** The timestamp the page shown is up to date as of: where a stream or long-poll goes on from. */
  private since = '';

  constructor(
    private readonly api: Api,
    private readonly collectionId: string,
    private readonly query: ListQuery,
    private readonly onAnswer: (answer: ListAnswer) => void,
    private readonly onError: (error: unknown) => void,
    private readonly onMode: (mode: LiveMode, why?: string) => void = () => {},
  ) {}

  start(since: string): void {
    this.since = since;
    void this.run();
  }

  stop(): void {
    this.stopper.abort();
  }

  get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    let mode: LiveMode = 'stream';
    this.onMode(mode);
    while (!signal.aborted) {
      try {
        if (mode === 'stream') {
          await this.follow();
          // The server ended the stream (it is shutting down): reconnect after a pause, from the last event.
          await pause(RETRY_MS, signal);
        } else {
          const answer = await this.api.list(this.collectionId, this.query, { since: this.since, waitFor: WAIT_FOR, signal });
          if (signal.aborted) return;
          if (answer) {
            this.since = answer.timestamp;
            this.onAnswer(answer);
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        if (mode === 'stream' && error instanceof ApiError && error.status >= 400 && error.status < 500) {
          // Refused for this query, or ended by an error event: long-polls serve every query a list serves.
          mode = 'long-poll';
          this.onMode(mode, error.envelope.reason);
          continue;
        }
        this.onError(error);
        // A server that is down or restarting: try again a little later rather than in a tight loop.
        await pause(RETRY_MS, signal);
      }
    }
  }

  /** Follows the push stream until it ends, keeping `since` at the last event id seen. */
  private async follow(): Promise<void> {
    const signal = this.stopper.signal;
    const body = await this.api.stream(this.collectionId, { where: this.query.where, sort: this.query.sort }, this.since, signal);
    let changed = false;
    for await (const event of serverEvents(body)) {
      if (signal.aborted) break;
      if (event.event === 'error') {
        const envelope = (JSON.parse(event.data) as { error: ErrorEnvelope }).error;
        throw new ApiError(400, envelope);
      }
      if (event.event === 'put' || event.event === 'remove' || event.event === 'reset') changed = true;
      if (event.id !== undefined) this.since = event.id;
      // `ready`, and the last event of each commit, carry an id: the result is whole again, so the page is read.
      if (event.id !== undefined && changed) {
        changed = false;
        const answer = await this.api.list(this.collectionId, this.query);
        if (signal.aborted || !answer) break;
        this.onAnswer(answer);
      }
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

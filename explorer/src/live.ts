// Live updates of a list: a long-poll loop (`since` = the last answer's X-Service-Timestamp) that hands each new
// answer over and asks again; the server answers 304 when nothing changed within `waitFor`. One loop per view,
// stopped when the view or its query changes.
import type { Api, ListAnswer, ListQuery } from './api.ts';

const WAIT_FOR = '30s';
const RETRY_MS = 3000;

export class LiveList {
  private readonly stopper = new AbortController();

  constructor(
    private readonly api: Api,
    private readonly collectionId: string,
    private readonly query: ListQuery,
    private readonly onAnswer: (answer: ListAnswer) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(since: string): void {
    void this.run(since);
  }

  stop(): void {
    this.stopper.abort();
  }

  get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private async run(since: string): Promise<void> {
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      try {
        const answer = await this.api.list(this.collectionId, this.query, { since, waitFor: WAIT_FOR, signal });
        if (signal.aborted) return;
        if (answer) {
          since = answer.timestamp;
          this.onAnswer(answer);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.onError(error);
        // A server that is down or restarting: try again a little later rather than in a tight loop.
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
}

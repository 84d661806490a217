// The explorer's only way to the server: vellum/client over the public /v0 API, as any client calls it. Requests
// are signed with the browser's key when there is one (reads too, as the Polybase client does, so read
// permissions apply). A new key makes a new client: the client's read signature belongs to its signer.
import { Client, type Collection, type ListOptions, type Page, type ServiceAnswer, type ServiceRequest, type UntypedSchema } from 'vellum/client';
import type { SigningKey } from './key.ts';

export type WireRecord = UntypedSchema['record'];
export type ListQuery = ListOptions<UntypedSchema['queryFields']>;
export type ListPage = Page<WireRecord>;
export type AnyCollection = Collection<UntypedSchema>;

export class Connection {
  #client: Client | undefined;
  #clientKey: SigningKey | undefined;

  constructor(
    private readonly key: () => SigningKey | undefined,
    /** The service's API root: `<origin>/v0`. */
    private readonly baseURL: string,
  ) {}

  /** The collection `id` (`app/Task`, or `Collection`), signed as the key in use now. */
  collection(id: string): AnyCollection {
    return this.#current().collectionById(id, { signReads: true });
  }

  /**
   * One request of a route the collection handles do not cover (a schema change's plan, an update naming the
   * fields whose loss it accepts), signed as the key in use now when `sign` says so.
   */
  send(request: ServiceRequest): Promise<ServiceAnswer> {
    return this.#current().send(request);
  }

  #current(): Client {
    const key = this.key();
    if (!this.#client || key !== this.#clientKey) {
      this.#client = new Client({ baseURL: this.baseURL, ...(key ? { signer: key.signer } : {}) });
      this.#clientKey = key;
    }
    return this.#client;
  }
}

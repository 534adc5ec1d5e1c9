// Client.listen's side: an open 2026-07-28 subscriptions/listen
// (Subscription), its options, and which notifications it asked for.

import type { ListenFilter, ServerNotification } from "./client_types";

/** Options of listen(). */
export interface SubscriptionOptions {
  /** Aborting cancels the listen request, or ends the subscription once it is open. */
  signal?: AbortSignal;
  /**
   * Called with each notification the subscription asked for. When given,
   * nothing is buffered for async iteration.
   */
  onNotification?: (notification: ServerNotification) => void;
  /** Notifications kept for async iteration before the oldest are dropped (default 1024). */
  maxBuffered?: number;
}

// The Client's side of a Subscription, out of users' sight.
export const deliver = Symbol("deliver");
export const ended = Symbol("ended");

/** Whether a subscription of filter f asked for this notification. */
export function wants(f: ListenFilter, method: string, params: { [key: string]: unknown }): boolean {
  switch (method) {
    case "notifications/tools/list_changed":
      return f.toolsListChanged === true;
    case "notifications/prompts/list_changed":
      return f.promptsListChanged === true;
    case "notifications/resources/list_changed":
      return f.resourcesListChanged === true;
    case "notifications/resources/updated":
      return Array.isArray(f.resourceSubscriptions) && f.resourceSubscriptions.includes(params.uri as string);
    default:
      return (
        method.startsWith("notifications/tasks") &&
        Array.isArray(f.taskIds) &&
        f.taskIds.includes(params.taskId as string)
      );
  }
}

/**
 * An open 2026-07-28 subscriptions/listen (Client.listen). The
 * notifications it asked for go to its onNotification, or are buffered for
 * `for await (const n of sub)`; the client's own onNotification gets them
 * too. close() (or `await using`, or the listen signal's abort, or closing
 * the client) ends it; breaking out of a `for await` loop closes it as well.
 * While open it keeps the event loop alive, as a listening socket does.
 */
export class Subscription implements AsyncDisposable, AsyncIterable<ServerNotification> {
  /** What listen() asked for. */
  readonly requested: ListenFilter;
  /** What the server agreed to send: its acknowledgement's notifications. */
  readonly honoured: ListenFilter;
  #closed = false;
  #error: Error | undefined;
  readonly #end: () => void;
  readonly #onNotification: ((n: ServerNotification) => void) | undefined;
  readonly #max: number;
  readonly #queue: ServerNotification[] = [];
  #waiter: ((r: IteratorResult<ServerNotification>) => void) | undefined;

  /** @internal Made by Client.listen. */
  constructor(requested: ListenFilter, honoured: ListenFilter, end: () => void, options: SubscriptionOptions) {
    this.requested = requested;
    this.honoured = honoured;
    this.#end = end;
    this.#onNotification = options.onNotification;
    this.#max = options.maxBuffered ?? 1024;
  }

  /** Whether the subscription ended (close(), the signal, the client's close, or the server's end). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Why the server's end of the subscription was not graceful (its stream broke, say); undefined otherwise. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Ends the subscription: the server is told, and the client lets go of it. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this[ended]();
      this.#end();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<ServerNotification> {
    return {
      next: () => {
        const n = this.#queue.shift();
        if (n !== undefined) {
          return Promise.resolve({ value: n, done: false });
        }
        if (this.#closed) {
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve) => (this.#waiter = resolve));
      },
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  /** @internal A notification the filter wants. */
  [deliver](n: ServerNotification): void {
    if (this.#closed) {
      return;
    }
    if (this.#onNotification !== undefined) {
      const fn = this.#onNotification;
      try {
        fn(n);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
      return;
    }
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter({ value: n, done: false });
      return;
    }
    this.#queue.push(n);
    if (this.#queue.length > this.#max) {
      this.#queue.shift();
    }
  }

  /** @internal Ended (with why, when the server's end was not graceful): no more notifications; a waiting iteration finishes. */
  [ended](error?: Error): void {
    this.#closed = true;
    this.#error ??= error;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }
}

// The second argument of every handler: the request's cancellation signal,
// its metadata and the notifications it may send while it runs.

import { LOGGING_LEVELS, type LoggingLevel, type Meta } from "./types";

export interface RequestExtra {
  /** Aborted when the client cancels the request, its deadline passes or the server closes. */
  readonly signal: AbortSignal;
  /** The request's params._meta (empty when it sent none). */
  readonly _meta: Meta;
  /** The protocol revision the request speaks, e.g. "2025-06-18". */
  readonly revision: string;
  /**
   * Reports progress. It is sent only when the client asked (a progressToken
   * in _meta) and only while progress increases; otherwise it does nothing.
   */
  sendProgress(progress: number, total?: number, message?: string): void;
  /** Sends a log message about this request, if the client's log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/** What a RequestExtra needs from the server that created it. */
export interface CallPort {
  progress(json: string): void;
  log(json: string): void;
}

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVELS);

/** The progress notification payload, checked here so a bad value fails in the handler that sent it. */
export function progressJson(progress: number, total?: number, message?: string): string {
  if (!Number.isFinite(progress)) {
    throw new TypeError("progress must be a finite number");
  }
  if (total !== undefined && !Number.isFinite(total)) {
    throw new TypeError("total must be a finite number");
  }
  return JSON.stringify({ progress, total, message });
}

export function logJson(level: LoggingLevel, data: unknown, logger?: string): string {
  if (!LEVELS.has(level)) {
    throw new TypeError(`unknown log level ${JSON.stringify(level)}; one of ${LOGGING_LEVELS.join(", ")}`);
  }
  return JSON.stringify({ level, logger, data: data === undefined ? null : data });
}

/**
 * A call's cancellation. Its AbortController is made only when the handler
 * reads `signal`: one per call was an eighth of a small call's JavaScript
 * time, and most handlers never look.
 */
export class Cancellation {
  #controller: AbortController | undefined;
  #aborted = false;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) {
        this.#controller.abort();
      }
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (!this.#aborted) {
      this.#aborted = true;
      this.#controller?.abort();
    }
  }
}

/** A RequestExtra over one call, from the params the core handed over. */
export function requestExtra(cancellation: Cancellation, port: CallPort, params: { _meta?: unknown; revision?: unknown }): RequestExtra {
  return {
    get signal() {
      return cancellation.signal;
    },
    _meta: (params._meta ?? {}) as Meta,
    revision: typeof params.revision === "string" ? params.revision : "",
    sendProgress(progress, total, message) {
      port.progress(progressJson(progress, total, message));
    },
    log(level, data, logger) {
      port.log(logJson(level, data, logger));
    },
  };
}

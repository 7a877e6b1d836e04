import { AsyncLocalStorage } from "node:async_hooks";
import type { EventMetadata } from "../../events/types.ts";

/** What the server knows about the HTTP request being handled, wherever the code runs. */
export interface RequestContext {
  requestId: string;
  /** The server's public base URL (absolute links in responses). */
  publicUrl?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequest<T>(context: RequestContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

/** Metadata every event appended while handling a request carries (its request id). */
export function requestMetadata(): EventMetadata | undefined {
  const context = storage.getStore();
  return context ? { requestId: context.requestId } : undefined;
}

/** The public base URL of the server handling the current request, if any. */
export function requestPublicUrl(): string | undefined {
  return storage.getStore()?.publicUrl;
}

import type { FaultError } from "../../shared/fault.ts";

/** An API failure with the documented body {message, errors:[{resource, field, code}]}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FaultError[] = [],
    /** Extra body (e.g. an upload status for a refused upload) sent instead of the fault. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (resource: string, field: string, code = "invalid") =>
  new ApiError(400, "Bad Request", [{ resource, field, code }]);

export const notFound = (resource: string, field = "id") =>
  new ApiError(404, "Record Not Found", [{ resource, field, code: "invalid" }]);

export const forbidden = (resource: string, field: string, code = "forbidden") =>
  new ApiError(403, "Forbidden", [{ resource, field, code }]);

export const authorizationError = (resource: string, field: string, code: string) =>
  new ApiError(401, "Authorization Error", [{ resource, field, code }]);

export const rateLimitExceeded = () =>
  new ApiError(403, "Rate Limit Exceeded", [
    { resource: "Application", field: "rate limit", code: "exceeded" },
  ]);

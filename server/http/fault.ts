import { ConcurrencyError, UniqueViolationError } from "../../events/types.ts";
import { DomainError } from "../../events/decider.ts";
import { isDatabaseUnavailable } from "../../events/db/types.ts";
import { ApiError } from "./errors.ts";

const DOMAIN_STATUS: Record<DomainError["kind"], [number, string]> = {
  invalid: [400, "Bad Request"],
  not_found: [404, "Record Not Found"],
  forbidden: [403, "Forbidden"],
  conflict: [409, "Conflict"],
  unauthorized: [401, "Authorization Error"],
};

/** Maps any error to the documented fault body; never a stack trace to a client. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    const [status, message] = DOMAIN_STATUS[error.kind];
    return new ApiError(
      status,
      message,
      error.problems.map((p) => ({ resource: error.resource, field: p.field, code: p.code })),
    );
  }
  if (error instanceof ConcurrencyError) {
    return new ApiError(409, "Conflict", [{ resource: "Stream", field: "version", code: "conflict" }]);
  }
  if (error instanceof UniqueViolationError) {
    return new ApiError(409, "Conflict", [{ resource: "Resource", field: error.constraint, code: "already exists" }]);
  }
  if (isDatabaseUnavailable(error)) {
    // The database is away (PostgreSQL stopped or restarting): not this request's fault, and
    // another server or a retry may do (docs/fitness-lb.conf: proxy_next_upstream … http_503).
    return new ApiError(503, "Service Unavailable", [{
      resource: "Database",
      field: "connection",
      code: "unavailable",
    }]);
  }
  const status = (error as { status?: number } | null)?.status;
  if (status === 413) {
    return new ApiError(413, "Payload Too Large", [{ resource: "Request", field: "body", code: "too large" }]);
  }
  return new ApiError(500, "Internal Server Error", []);
}

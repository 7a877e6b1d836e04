/** The uniform error body of the API: {message, errors:[{resource, field, code}]}. */
export interface FaultError {
  resource: string;
  field: string;
  code: string;
}

export interface Fault {
  message: string;
  errors: FaultError[];
}

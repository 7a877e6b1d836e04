import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import {
  accessTokenIssued,
  type ApplicationEvent,
  applicationRegistered,
  applicationSecretRegenerated,
  oauthClientRegistered,
} from "./events.ts";

/** One API application (stream application-<id>). */
export interface ApplicationState {
  exists: boolean;
}

export type ApplicationCommand =
  | {
    type: "register";
    application: EventData<typeof applicationRegistered>;
    publicToken: EventData<typeof accessTokenIssued>;
  }
  | { type: "regenerateSecret"; applicationId: number; clientSecretHash: string }
  /** Dynamic client registration (RFC 7591): the caller checked the metadata (server/oauth/registration.ts). */
  | { type: "registerClient"; client: EventData<typeof oauthClientRegistered> };

/** A callback domain: a host name (or localhost), optionally with a port. */
export const CALLBACK_DOMAIN = /^(localhost|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)(:\d+)?$/i;

/** The rules of a registration, also run before an id is drawn: a name and a well-formed callback domain. */
export function checkApplication(input: { name: string; callbackDomain: string }): void {
  if (!input.name.trim()) throw new DomainError("invalid", "Application", "name", "missing");
  if (!CALLBACK_DOMAIN.test(input.callbackDomain)) {
    throw new DomainError("invalid", "Application", "callback_domain", "invalid");
  }
}

/**
 * An application is registered once, with its public access token; its client secret is
 * regenerated only once it exists.
 */
export const applicationDecider: Decider<ApplicationState, ApplicationCommand, ApplicationEvent> = {
  initialState: () => ({ exists: false }),
  evolve: (state, event: ApplicationEvent) =>
    event.type === applicationRegistered.type || event.type === oauthClientRegistered.type ? { exists: true } : state,
  decide(command, state) {
    if (command.type === "registerClient") {
      if (state.exists) throw new DomainError("conflict", "Application", "client_id", "already exists");
      if (command.client.redirectUris.length === 0) {
        throw new DomainError("invalid", "Application", "redirect_uris", "missing");
      }
      if ((command.client.tokenEndpointAuthMethod === "none") !== (command.client.clientSecretHash === null)) {
        throw new DomainError("invalid", "Application", "token_endpoint_auth_method", "invalid");
      }
      return [oauthClientRegistered.create(command.client)];
    }
    if (command.type === "register") {
      checkApplication(command.application);
      if (state.exists) throw new DomainError("conflict", "Application", "client_id", "already exists");
      return [applicationRegistered.create(command.application), accessTokenIssued.create(command.publicToken)];
    }
    if (!state.exists) throw new DomainError("not_found", "Application", "client_id", "invalid");
    return [
      applicationSecretRegenerated.create({
        applicationId: command.applicationId,
        clientSecretHash: command.clientSecretHash,
      }),
    ];
  },
};

import type { Decider } from "../decider.ts";
import { athleteEnhancedPrivacyChanged, type AthleteSettingsEvent } from "./events.ts";

/** An athlete's club-related settings (stream athlete-settings-<id>). */
export interface AthleteSettingsState {
  enhancedPrivacy: boolean | null;
}

export type AthleteSettingsCommand = { type: "setEnhancedPrivacy"; athleteId: number; enhancedPrivacy: boolean };

/** Enhanced Privacy is set on or off; each setting is recorded (as the CLI has always done). */
export const athleteSettingsDecider: Decider<AthleteSettingsState, AthleteSettingsCommand, AthleteSettingsEvent> = {
  initialState: () => ({ enhancedPrivacy: null }),
  evolve: (state, event: AthleteSettingsEvent) =>
    event.type === athleteEnhancedPrivacyChanged.type ? { enhancedPrivacy: event.data.enhancedPrivacy } : state,
  decide: (
    command,
  ) => [
    athleteEnhancedPrivacyChanged.create({ athleteId: command.athleteId, enhancedPrivacy: command.enhancedPrivacy }),
  ],
};

/**
 * The event catalogue: importing this module registers every event type. Add one import line per
 * event family.
 */
import "./athlete/events.ts";
import "./application/events.ts";
import "./activity/events.ts";

export { allEventDefinitions, eventDefinition } from "./catalogue.ts";

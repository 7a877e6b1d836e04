/**
 * The event catalogue: importing this module registers every event type. Add one import line per
 * event family.
 */
import "./platform/events.ts";
import "./athlete/events.ts";
import "./application/events.ts";
import "./activity/events.ts";
import "./activity/reprocessed.ts";
import "./activity/changes.ts";
import "./gear/events.ts";
import "./oauth/events.ts";
import "./club/events.ts";
import "./challenge/events.ts";
import "./privacy-zone/events.ts";
import "./heatmap/events.ts";
import "./segment/events.ts";
import "./upload/events.ts";
import "./push-subscription/events.ts";

export { allEventDefinitions, eventDefinition } from "./catalogue.ts";

import type { Projection } from "./projection.ts";
import { athletesProjection } from "./athletes/projection.ts";
import { applicationsProjection } from "./applications/projection.ts";
import { followsProjection } from "./follows/projection.ts";

/** Every read model of the platform. Add one line per projection. */
export const allProjections: Projection[] = [
  athletesProjection,
  applicationsProjection,
  followsProjection,
];

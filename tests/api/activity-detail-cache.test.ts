import { activityDetailCacheSuite } from "../helpers/activity-detail-cache-suite.ts";

/** GET /v3/activities/:id's kept answer on the embedded store (the suite's page says what it proves). */
activityDetailCacheSuite({ open: () => Promise.resolve({}) });

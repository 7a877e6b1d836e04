import { systemActor } from "../actor.ts";
import type { Platform } from "../platform.ts";
import { initializePlatform } from "./commands.ts";
import { createApplication, issueToken } from "../applications/commands.ts";
import { createAthlete } from "../athletes/commands.ts";
import type { Demo, SeedStep } from "./demo.ts";
import { seedActivities } from "./activities.ts";
import { seedSegments } from "./segments.ts";
import { seedClubs } from "./clubs.ts";

/** The demo's steps after the athletes and the application, one line per family (listed, never pushed). */
export const seedSteps: readonly SeedStep[] = [
  seedActivities,
  seedSegments,
  seedClubs,
];

const PEOPLE = [
  {
    firstname: "Ada",
    lastname: "Lovelace",
    sex: "F" as const,
    city: "London",
    country: "United Kingdom",
    premium: true,
  },
  { firstname: "Eddy", lastname: "Merckx", sex: "M" as const, city: "Brussels", country: "Belgium", premium: false },
  {
    firstname: "Grace",
    lastname: "Hopper",
    sex: "F" as const,
    city: "New York",
    state: "NY",
    country: "United States",
    premium: false,
  },
];

/** Creates the demo platform on an empty database. Returns undefined when there already are events. */
export async function seedDemo(platform: Platform): Promise<Demo | undefined> {
  if ((await platform.store.headPosition()) > 0) return undefined;
  // Several servers may start together on one empty PostgreSQL: the one whose claim lands seeds.
  if (!(await initializePlatform(platform, true, systemActor("seed")))) return undefined;
  const athletes = [];
  for (const [i, p] of PEOPLE.entries()) {
    const email = `${p.firstname.toLowerCase()}@example.com`;
    const password = "demo-password";
    const id = await createAthlete(platform, {
      ...p,
      email,
      password,
      birthdate: `19${80 + i}-05-0${i + 1}`,
      weight: 60 + i * 8,
    }, systemActor("seed"));
    athletes.push({ id, firstname: p.firstname, email, password });
  }
  const application = await createApplication(platform, {
    name: "Demo App",
    ownerId: athletes[0].id,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
    challengesEnabled: true,
    description: "Created on first start",
  }, systemActor("seed", athletes[0].id));
  const token = await issueToken(platform, {
    athleteId: athletes[0].id,
    applicationId: application.client_id,
    permissions: ["read", "write", "view_private"],
  }, systemActor("seed", athletes[0].id, application.client_id));
  const demo: Demo = { athletes, application, token, examples: [] };
  for (const step of seedSteps) {
    try {
      await step(platform, demo);
    } catch (error) {
      // A demo step that fails must not keep the platform from starting.
      console.error(`demo data: a step failed (${(error as Error).message}); continuing`);
    }
  }
  return demo;
}

export function demoBanner(demo: Demo, baseUrl: string): string {
  const t = demo.token;
  return [
    "",
    "Demo platform created:",
    ...demo.athletes.map((a) => `  athlete ${a.id}: ${a.firstname} <${a.email}> password "${a.password}"`),
    `  application ${demo.application.client_id} (client secret ${demo.application.client_secret})`,
    "",
    `Access token (athlete ${demo.athletes[0].id}, scope view_private,write):`,
    `  ${t}`,
    "",
    "Try it:",
    `  curl -H "Authorization: Bearer ${t}" ${baseUrl}/v3/athlete`,
    `  curl -H "Authorization: Bearer ${t}" ${baseUrl}/v3/athletes/${demo.athletes[1].id}`,
    ...demo.examples.map((e) => `  ${e.replaceAll("$TOKEN", t).replaceAll("$BASE", baseUrl)}`),
    `  open ${baseUrl}/docs for the API reference`,
    "",
  ].join("\n");
}

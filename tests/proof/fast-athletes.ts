import { athleteRegistered, athleteStream } from "../../events/athlete/events.ts";
import { issueToken } from "../../server/applications/commands.ts";
import type { Permission } from "../../server/http/auth.ts";
import { nextId } from "../../server/ids.ts";
import type { Platform } from "../../server/platform.ts";
import { hashPassword } from "../../server/security.ts";

export interface RaceAthlete {
  id: number;
  email: string;
  token: string;
  applicationId: number;
}

let sharedHash: Promise<string> | undefined;

/**
 * Many athletes with tokens for one application, created in-process in batches. They are registered
 * with the same AthleteRegistered event createAthlete appends, but share one scrypt password hash
 * (hashing a thousand passwords would dominate the test's time); tokens come from issueToken.
 */
export async function manyAthletes(
  platform: Platform,
  count: number,
  applicationId: number,
  tag: string,
  permissions: Permission[] = ["read", "write"],
): Promise<RaceAthlete[]> {
  const passwordHash = await (sharedHash ??= hashPassword("password123"));
  const out: RaceAthlete[] = [];
  for (let start = 0; start < count; start += 50) {
    const batch = Array.from({ length: Math.min(50, count - start) }, (_, k) => start + k);
    out.push(
      ...await Promise.all(batch.map(async (i) => {
        const id = await nextId(platform.db, "athlete");
        const email = `${tag}${i}-${id}@example.com`;
        await platform.store.append(athleteStream(id), 0, [athleteRegistered.create({
          athleteId: id,
          firstname: `${tag}${i}`,
          lastname: "Race",
          email,
          passwordHash,
          sex: null,
          premium: false,
          city: null,
          state: null,
          country: null,
          birthdate: null,
          weight: null,
        })], { metadata: { source: "test" } });
        const token = await issueToken(platform, { athleteId: id, applicationId, permissions });
        return { id, email, token, applicationId };
      })),
    );
  }
  return out;
}

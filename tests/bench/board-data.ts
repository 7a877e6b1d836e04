import type { Db } from "../../events/db/types.ts";

/** The leaderboard benches' board: athletes, their efforts on segment 1, athlete 1's follows and club. */
export const BOARD_ATHLETES = 20_000;
export const BOARD_EFFORTS = 100_000;

/**
 * Writes the athletes, the efforts on segment 1 (ids beyond 2^53), 200 followees of athlete 1 and a
 * 601-member club 1 (athlete 1 its owner) — shared by `npm run bench -- segments` and
 * board-requests.ts, which add their own segments and build the boards.
 */
export async function writeBoardData(db: Db): Promise<void> {
  await db.exec(`
    insert into athletes (id, firstname, lastname, email, password_hash, sex, premium, birthdate, weight, created_at, updated_at)
    select g, 'A' || g, 'B', 'a' || g || '@x', 'x', case when g % 2 = 0 then 'F' else 'M' end, true,
           (1950 + g % 55)::text || '-06-01', 45 + (g % 60), now(), now()
      from generate_series(1, ${BOARD_ATHLETES}) g;
    insert into segment_efforts (id, segment_id, activity_id, athlete_id, ord, name, start_index, end_index, start_date,
           start_date_local, elapsed_time, moving_time, distance, achievements, hidden, visibility)
    select 9007199254740992 + g, 1, g, 1 + (g % ${BOARD_ATHLETES}), 0, 'S', 0, 10,
           now() - (((g + (g / ${BOARD_ATHLETES}) * 97) % 400) || ' days')::interval,
           (now() - (((g + (g / ${BOARD_ATHLETES}) * 97) % 400) || ' days')::interval)::timestamp,
           300 + ((g * 7919) % 900), 300 + ((g * 7919) % 900), 1000, '[]'::jsonb, false, 'everyone'
      from generate_series(1, ${BOARD_EFFORTS}) g;
    insert into follows (follower_id, followee_id, created_at) select 1, g * 97, now() from generate_series(1, 200) g;
    insert into club_members (club_id, athlete_id, membership, admin, owner, since)
    select 1, g * 31, 'member', false, false, now() from generate_series(1, 600) g;
    insert into club_members (club_id, athlete_id, membership, admin, owner, since) values (1, 1, 'member', true, true, now())
      on conflict do nothing;
  `);
}

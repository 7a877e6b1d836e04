import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import {
  athleteEnhancedPrivacyChanged,
  clubAdminDemoted,
  clubAdminPromoted,
  clubCreated,
  clubJoined,
  clubLeft,
  clubMemberInvited,
  clubMembershipApproved,
  clubMembershipDeclined,
  clubMembershipRequested,
} from "../../events/club/events.ts";
import type { Projection } from "../projection.ts";
import { clubsBulk } from "./bulk.ts";

type Created = EventData<typeof clubCreated>;
type Ids = { clubId: number; athleteId: number };

/**
 * Clubs and their members (membership 'member' or 'pending', admin, owner), open invitations, and
 * the athletes' Enhanced Privacy setting that hides them from non-members' member lists.
 */
export const clubsProjection: Projection = {
  name: "clubs",
  tables: ["clubs", "club_members", "club_invitations", "athlete_enhanced_privacy"],
  schema: `
    create table if not exists clubs (
      id bigint primary key,
      name text not null,
      description text,
      club_type text not null,
      sport_type text not null,
      city text,
      state text,
      country text,
      private boolean not null,
      verified boolean not null,
      owner_id bigint not null,
      url text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      -- Members (membership 'member'), kept with each change: reads never count them.
      member_count integer not null default 0
    );
    create unique index if not exists clubs_url_unique on clubs (url);
    create table if not exists club_members (
      club_id bigint not null,
      athlete_id bigint not null,
      membership text not null,
      admin boolean not null,
      owner boolean not null,
      since timestamptz not null,
      primary key (club_id, athlete_id)
    );
    create index if not exists club_members_athlete on club_members (athlete_id);
    create table if not exists club_invitations (
      club_id bigint not null,
      athlete_id bigint not null,
      invited_at timestamptz not null,
      primary key (club_id, athlete_id)
    );
    create table if not exists athlete_enhanced_privacy (
      athlete_id bigint primary key,
      enhanced_privacy boolean not null
    );
  `,
  isolated: true,
  bulk: clubsBulk,
  handles: [
    clubCreated.type,
    clubMemberInvited.type,
    clubJoined.type,
    clubMembershipRequested.type,
    clubMembershipApproved.type,
    clubMembershipDeclined.type,
    clubLeft.type,
    clubAdminPromoted.type,
    clubAdminDemoted.type,
    athleteEnhancedPrivacyChanged.type,
  ],
  async apply(tx: Queryable, event: StoredEvent) {
    const at = event.recordedAt;
    switch (event.type) {
      case clubCreated.type: {
        const c = event.data;
        await tx.query(
          `insert into clubs (id, name, description, club_type, sport_type, city, state, country, private,
             verified, owner_id, url, created_at, updated_at, member_count)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$13,1)`,
          [
            c.clubId,
            c.name,
            c.description,
            c.clubType,
            c.sportType,
            c.city,
            c.state,
            c.country,
            c.private,
            c.verified,
            c.ownerId,
            c.url,
            at,
          ],
        );
        await tx.query(
          `insert into club_members (club_id, athlete_id, membership, admin, owner, since)
           values ($1, $2, 'member', true, true, $3)`,
          [c.clubId, c.ownerId, at],
        );
        return;
      }
      case clubMemberInvited.type:
        await tx.query(
          "insert into club_invitations (club_id, athlete_id, invited_at) values ($1,$2,$3) on conflict do nothing",
          [event.data.clubId, event.data.athleteId, at],
        );
        return;
      case clubJoined.type:
      case clubMembershipApproved.type:
        // The membership, and the club's member count when the athlete was not a member before
        // (all parts of one statement see the rows as they were before it).
        await tx.query(
          `with before as (select membership from club_members where club_id = $1 and athlete_id = $2),
                put as (insert into club_members (club_id, athlete_id, membership, admin, owner, since)
                        values ($1, $2, 'member', false, false, $3)
                        on conflict (club_id, athlete_id) do update set membership = 'member', since = excluded.since
                        returning 1)
           update clubs set updated_at = $3,
                  member_count = member_count + case when exists (select 1 from before where membership = 'member')
                                                     then 0 else 1 end
            where id = $1`,
          [event.data.clubId, event.data.athleteId, at],
        );
        await tx.query("delete from club_invitations where club_id = $1 and athlete_id = $2", [
          event.data.clubId,
          event.data.athleteId,
        ]);
        return;
      case clubMembershipRequested.type:
        await tx.query(
          `insert into club_members (club_id, athlete_id, membership, admin, owner, since)
           values ($1, $2, 'pending', false, false, $3) on conflict do nothing`,
          [event.data.clubId, event.data.athleteId, at],
        );
        return;
      case clubMembershipDeclined.type:
      case clubLeft.type:
        await tx.query(
          `with gone as (delete from club_members where club_id = $1 and athlete_id = $2 returning membership)
           update clubs set updated_at = $3,
                  member_count = member_count - (select count(*)::int from gone where membership = 'member')
            where id = $1`,
          [event.data.clubId, event.data.athleteId, at],
        );
        return;
      case clubAdminPromoted.type:
      case clubAdminDemoted.type:
        await tx.query(
          "update club_members set admin = $3 where club_id = $1 and athlete_id = $2",
          [event.data.clubId, event.data.athleteId, event.type === clubAdminPromoted.type],
        );
        return;
      case athleteEnhancedPrivacyChanged.type: {
        const p = event.data;
        await tx.query(
          `insert into athlete_enhanced_privacy (athlete_id, enhanced_privacy) values ($1, $2)
           on conflict (athlete_id) do update set enhanced_privacy = excluded.enhanced_privacy`,
          [p.athleteId, p.enhancedPrivacy],
        );
        return;
      }
    }
  },
};

import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, none } from "../bulk.ts";

/**
 * Clubs from the whole log (projections/bulk.ts). Per (club, athlete), only the events after the
 * last leave or decline count (they delete the row): the row is made by the first join, approval,
 * request (pending) or the club's creation (its owner: an admin member) among them; a later join or
 * approval makes it a member since then; the last promotion or demotion after it sets admin. An
 * invitation stands when made after the pair's last join or approval (the first such). A club's
 * members are counted once; its updated_at is its last membership change. `fits`: each club is
 * created once, before any other event of it (as the deciders keep it), so the live counter equals
 * the count.
 */
const MEMBERSHIP = `
  ev as (
    select (data->>'clubId')::bigint as club, (data->>'athleteId')::bigint as athlete, type, position, at
      from public.replay_log
     where type in ('ClubJoined', 'ClubMembershipRequested', 'ClubMembershipApproved', 'ClubMembershipDeclined',
                    'ClubLeft', 'ClubAdminPromoted', 'ClubAdminDemoted') and position <= $1
    union all
    select (data->>'clubId')::bigint, (data->>'ownerId')::bigint, type, position, at
      from public.replay_log where type = 'ClubCreated' and position <= $1),
  since_reset as (
    select * from (select e.*, max(position) filter (where type in ('ClubMembershipDeclined', 'ClubLeft'))
                                 over (partition by club, athlete) as reset
                     from ev e) x
     where position > coalesce(reset, 0)),
  made as (
    select distinct on (club, athlete) club, athlete, type, position, at from since_reset
     where type in ('ClubCreated', 'ClubJoined', 'ClubMembershipApproved', 'ClubMembershipRequested')
     order by club, athlete, position),
  later as (
    select s.club, s.athlete,
           (array_agg(s.at order by s.position desc)
              filter (where s.type in ('ClubJoined', 'ClubMembershipApproved')))[1] as joined_at,
           (array_agg(s.type order by s.position desc)
              filter (where s.type in ('ClubAdminPromoted', 'ClubAdminDemoted')))[1] as admin_change
      from since_reset s join made m on m.club = s.club and m.athlete = s.athlete and s.position >= m.position
     group by s.club, s.athlete)`;

export const clubsBulk: BulkLoader = {
  writtenFor: "f6da5f619012e338",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(
      `with created as (
         select (data->>'clubId')::bigint as club, min(position) as position, count(*) as n
           from public.replay_log where type = 'ClubCreated' and position <= $1 group by 1)
       select ${none("select 1 from created where n > 1")} and ${
        none(`select 1 from public.replay_log e left join created c on c.club = (e.data->>'clubId')::bigint
             where e.type in ('ClubMemberInvited', 'ClubJoined', 'ClubMembershipRequested', 'ClubMembershipApproved',
                              'ClubMembershipDeclined', 'ClubLeft', 'ClubAdminPromoted', 'ClubAdminDemoted')
               and e.position <= $1 and (c.position is null or c.position > e.position)`)
      } as fits`,
      [log.until],
    );
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with ${MEMBERSHIP}
       insert into club_members (club_id, athlete_id, membership, admin, owner, since)
       select m.club, m.athlete,
              case when m.type <> 'ClubMembershipRequested' or l.joined_at is not null then 'member' else 'pending' end,
              case when l.admin_change is not null then l.admin_change = 'ClubAdminPromoted' else m.type = 'ClubCreated' end,
              m.type = 'ClubCreated', coalesce(l.joined_at, m.at)
         from made m left join later l on l.club = m.club and l.athlete = m.athlete`,
      [log.until],
    );
    await tx.query(
      `with changed as (
         select (data->>'clubId')::bigint as club, (array_agg(at order by position desc))[1] as at
           from public.replay_log
          where type in ('ClubJoined', 'ClubMembershipApproved', 'ClubMembershipDeclined', 'ClubLeft') and position <= $1
          group by 1),
       members as (select club_id, count(*)::int as n from club_members where membership = 'member' group by 1)
       insert into clubs (id, name, description, club_type, sport_type, city, state, country, private, verified, owner_id,
         url, created_at, updated_at, member_count)
       select (c.data->>'clubId')::bigint, c.data->>'name', c.data->>'description', c.data->>'clubType',
              c.data->>'sportType', c.data->>'city', c.data->>'state', c.data->>'country', (c.data->>'private')::boolean,
              (c.data->>'verified')::boolean, (c.data->>'ownerId')::bigint, c.data->>'url', c.at, coalesce(x.at, c.at),
              coalesce(m.n, 0)
         from public.replay_log c
         left join changed x on x.club = (c.data->>'clubId')::bigint
         left join members m on m.club_id = (c.data->>'clubId')::bigint
        where c.type = 'ClubCreated' and c.position <= $1`,
      [log.until],
    );
    await tx.query(
      `with joined as (
         select (data->>'clubId')::bigint as club, (data->>'athleteId')::bigint as athlete, max(position) as position
           from public.replay_log where type in ('ClubJoined', 'ClubMembershipApproved') and position <= $1 group by 1, 2)
       insert into club_invitations (club_id, athlete_id, invited_at)
       select distinct on (i.club, i.athlete) i.club, i.athlete, i.at
         from (select (data->>'clubId')::bigint as club, (data->>'athleteId')::bigint as athlete, position, at
                 from public.replay_log where type = 'ClubMemberInvited' and position <= $1) i
         left join joined j on j.club = i.club and j.athlete = i.athlete
        where i.position > coalesce(j.position, 0)
        order by i.club, i.athlete, i.position`,
      [log.until],
    );
    await tx.query(
      `insert into athlete_enhanced_privacy (athlete_id, enhanced_privacy)
       select distinct on ((data->>'athleteId')::bigint) (data->>'athleteId')::bigint, (data->>'enhancedPrivacy')::boolean
         from public.replay_log where type = 'AthleteEnhancedPrivacyChanged' and position <= $1
        order by (data->>'athleteId')::bigint, position desc`,
      [log.until],
    );
  },
};

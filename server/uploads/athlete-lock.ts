/**
 * One athlete's uploads decode in parallel (the derive pool), but deciding "is this a duplicate?"
 * and recording the activity must happen one upload at a time per athlete, or two copies of one
 * file decoded side by side both pass the check. A chain of promises per athlete, in this process.
 */
const tails = new Map<number, Promise<void>>();

/** Waits for the athlete's turn; call the returned function to give it up. */
export async function athleteTurn(athleteId: number): Promise<() => void> {
  const previous = tails.get(athleteId) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  tails.set(athleteId, tail);
  await previous;
  return () => {
    release();
    if (tails.get(athleteId) === tail) tails.delete(athleteId);
  };
}

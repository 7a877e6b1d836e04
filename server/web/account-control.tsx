import { type Context, Hono } from "hono";
import { DomainError } from "../../events/decider.ts";
import { changePassword, eraseAccount, signOutEverywhere } from "../accounts/commands.ts";
import { webActor } from "../actor.ts";
import type { Platform } from "../platform.ts";
import { revokeSessionTokens } from "./app/token.ts";
import { csrfRefused, formOf, web } from "./context.tsx";
import { Csrf, ErrorBox } from "./layout.tsx";
import { redirectToSignIn } from "./redirect.ts";
import { sessionIdHash, signOut } from "./session.ts";
import { clientAddress, signInThrottle } from "./throttle.ts";

/**
 * The athlete's own account (issue 29 item 11), on /settings/account: change the password (the
 * current one required; every other session ends with its page tokens), sign out everywhere (every
 * session, this one too, with their page tokens), delete the account (password confirmed; see
 * docs/accounts.md). CSRF-protected forms like every other.
 */
function AccountPage(props: { csrf: string; error?: { form: string; message: string }; flash?: string }) {
  const err = (form: string) => props.error?.form === form ? props.error.message : undefined;
  return (
    <>
      {props.flash ? <div class="notice" role="status">{props.flash}</div> : null}
      <div class="card">
        <h1>Change password</h1>
        <p class="muted">Every other place you are signed in is signed out, and the pages open there stop working.</p>
        <ErrorBox message={err("password")} />
        <form method="post" action="/settings/password">
          <Csrf token={props.csrf} />
          <label for="current_password">Current password</label>
          <input
            type="password"
            id="current_password"
            name="current_password"
            required
            autocomplete="current-password"
          />
          <label for="new_password">New password</label>
          <input
            type="password"
            id="new_password"
            name="new_password"
            required
            minlength={8}
            autocomplete="new-password"
          />
          <p class="hint">At least 8 characters.</p>
          <div class="actions">
            <button type="submit">Change password</button>
          </div>
        </form>
      </div>
      <div class="card">
        <h1>Sign out everywhere</h1>
        <p class="muted">Ends every session of your account, this one too, and the page tokens tied to them.</p>
        <form method="post" action="/settings/sign-out-everywhere">
          <Csrf token={props.csrf} />
          <div class="actions">
            <button type="submit">Sign out everywhere</button>
          </div>
        </form>
      </div>
      <div class="card">
        <h1>Delete account</h1>
        <p class="muted">
          Deletes your profile, activities, photos, comments, kudos, club and challenge memberships, follows, gear,
          routes, segments, heatmaps and applications, from every page, feed and leaderboard and from the event log
          itself. This cannot be undone.
        </p>
        <ErrorBox message={err("delete")} />
        <form method="post" action="/settings/delete-account">
          <Csrf token={props.csrf} />
          <label for="delete_password">Your password</label>
          <input type="password" id="delete_password" name="password" required autocomplete="current-password" />
          <div class="actions">
            <button type="submit">Delete my account</button>
          </div>
        </form>
      </div>
    </>
  );
}

const PASSWORD_MESSAGES: Record<string, string> = {
  "password:invalid": "The current password is wrong.",
  "password:too short": "The new password must have at least 8 characters.",
};

/**
 * Password guesses through these forms (a stolen session trying passwords) count against the same
 * throttle as sign-in, per address and account: after a few wrong ones the form answers 429.
 */
function throttled(c: Context, platform: Platform, email: string): number {
  return signInThrottle(platform).waitFor(clientAddress(c), email);
}

/** GET /settings/account. */
async function accountPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  return w.render("Account", <AccountPage csrf={w.csrf} flash={w.takeFlash()} />);
}

/** POST /settings/password: the current password required; every other session ends with its page tokens. */
async function changePasswordForm(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  const wait = throttled(c, platform, w.athlete.email);
  if (wait > 0) {
    c.header("retry-after", String(Math.ceil(wait / 1000)));
    return w.render(
      "Account",
      <AccountPage csrf={w.csrf} error={{ form: "password", message: "Too many wrong passwords. Try again later." }} />,
      429,
    );
  }
  try {
    const ended = await changePassword(
      platform,
      w.athlete.id,
      {
        current: form.current_password ?? "",
        next: form.new_password ?? "",
      },
      sessionIdHash(c),
      webActor(w.athlete.id),
    );
    signInThrottle(platform).succeeded(clientAddress(c), w.athlete.email);
    w.leaveFlash(`Password changed. ${ended.sessions} other session(s) signed out.`);
    return c.redirect("/settings/account", 303);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.kind === "unauthorized") signInThrottle(platform).failed(clientAddress(c), w.athlete.email);
    const message = PASSWORD_MESSAGES[`${error.field}:${error.code}`] ?? "Please check the form.";
    return w.render(
      "Account",
      <AccountPage csrf={w.csrf} error={{ form: "password", message }} />,
      error.kind === "unauthorized" ? 401 : 400,
    );
  }
}

/** POST /settings/sign-out-everywhere: every session, this one too, with their page tokens. */
async function signOutEverywhereForm(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  await signOutEverywhere(platform, w.athlete.id, sessionIdHash(c));
  await revokeSessionTokens(c, platform, w.athlete.id);
  await signOut(c, platform);
  return c.redirect("/login", 303);
}

/** POST /settings/delete-account: the password confirmed (docs/accounts.md). */
async function deleteAccountForm(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  const wait = throttled(c, platform, w.athlete.email);
  if (wait > 0) {
    c.header("retry-after", String(Math.ceil(wait / 1000)));
    return w.render(
      "Account",
      <AccountPage csrf={w.csrf} error={{ form: "delete", message: "Too many wrong passwords. Try again later." }} />,
      429,
    );
  }
  try {
    await eraseAccount(platform, w.athlete.id, form.password ?? "", webActor(w.athlete.id));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    signInThrottle(platform).failed(clientAddress(c), w.athlete.email);
    return w.render(
      "Account",
      <AccountPage csrf={w.csrf} error={{ form: "delete", message: "The password is wrong." }} />,
      401,
    );
  }
  await signOut(c, platform);
  return c.redirect("/login", 303);
}

/** The account page and its three forms, mounted at `/settings`. */
export function accountControlPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/account", (c) => accountPage(c, platform));
  pages.post("/password", (c) => changePasswordForm(c, platform));
  pages.post("/sign-out-everywhere", (c) => signOutEverywhereForm(c, platform));
  pages.post("/delete-account", (c) => deleteAccountForm(c, platform));
  return pages;
}

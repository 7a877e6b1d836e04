import { type Context, Hono } from "hono";
import { credentialsByEmail } from "../../projections/athletes/queries.ts";
import { DomainError } from "../../events/decider.ts";
import { createAthlete, passwordCostOf, rehashPassword } from "../athletes/commands.ts";
import { systemActor, webActor } from "../actor.ts";
import type { Platform } from "../platform.ts";
import { hashPassword, type PasswordCost, randomSecret, verifyPassword } from "../security.ts";
import { csrfRefused, formOf, web } from "./context.tsx";
import { Csrf, ErrorBox } from "./layout.tsx";
import { localTarget, redirectLocal } from "./redirect.ts";
import { signIn, signOut } from "./session.ts";
import { revokeSessionTokens } from "./app/token.ts";
import { clientAddress, signInThrottle } from "./throttle.ts";

// A hash of a random password at the current cost: unknown e-mails cost as much as wrong passwords.
const dummyHashes = new Map<number, Promise<string>>();
function dummyHash(cost: PasswordCost): Promise<string> {
  let hash = dummyHashes.get(cost.N);
  if (!hash) dummyHashes.set(cost.N, hash = hashPassword(randomSecret(16), cost));
  return hash;
}

const FIELD_MESSAGES: Record<string, string> = {
  firstname: "Please enter your first name.",
  lastname: "Please enter your last name.",
  email: "Please enter a valid e-mail address.",
  password: "The password must have at least 8 characters.",
};

function SignUpForm(props: { csrf: string; next: string; values: Record<string, string>; error?: string }) {
  const v = props.values;
  return (
    <div class="card">
      <h1>Create your account</h1>
      <ErrorBox message={props.error} />
      <form method="post" action="/register">
        <Csrf token={props.csrf} />
        <input type="hidden" name="next" value={props.next} />
        <label for="firstname">First name</label>
        <input
          type="text"
          id="firstname"
          name="firstname"
          value={v.firstname ?? ""}
          required
          autocomplete="given-name"
        />
        <label for="lastname">Last name</label>
        <input type="text" id="lastname" name="lastname" value={v.lastname ?? ""} required autocomplete="family-name" />
        <label for="email">E-mail</label>
        <input type="email" id="email" name="email" value={v.email ?? ""} required autocomplete="email" />
        <label for="password">Password</label>
        <input type="password" id="password" name="password" required minlength={8} autocomplete="new-password" />
        <p class="hint">At least 8 characters.</p>
        <div class="actions">
          <button type="submit">Sign up</button>
          <a href={`/login?next=${encodeURIComponent(props.next)}`}>I already have an account</a>
        </div>
      </form>
    </div>
  );
}

function SignInForm(props: { csrf: string; next: string; email?: string; error?: string }) {
  return (
    <div class="card">
      <h1>Sign in</h1>
      <ErrorBox message={props.error} />
      <form method="post" action="/login">
        <Csrf token={props.csrf} />
        <input type="hidden" name="next" value={props.next} />
        <label for="email">E-mail</label>
        <input type="email" id="email" name="email" value={props.email ?? ""} required autocomplete="username" />
        <label for="password">Password</label>
        <input type="password" id="password" name="password" required autocomplete="current-password" />
        <div class="actions">
          <button type="submit">Sign in</button>
          <a href={`/register?next=${encodeURIComponent(props.next)}`}>Create an account</a>
        </div>
      </form>
    </div>
  );
}

/** Sign up (/register), sign in (/login) and sign out (POST /logout). */
/** GET /register. */
async function signUpPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  const next = localTarget(c.req.query("next"), "/");
  return w.render("Sign up", <SignUpForm csrf={w.csrf} next={next} values={{}} />);
}

/** POST /register: a new account, signed in at once. */
async function signUp(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form, true);
  if (refused) return refused;
  const next = localTarget(form.next, "/");
  try {
    const athleteId = await createAthlete(platform, {
      firstname: form.firstname ?? "",
      lastname: form.lastname ?? "",
      email: (form.email ?? "").trim(),
      password: form.password ?? "",
    }, systemActor("web"));
    await signIn(c, platform, athleteId);
    return redirectLocal(c, next, "/", 303);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const message = error.kind === "conflict"
      ? "An account with this e-mail already exists. Sign in instead."
      : FIELD_MESSAGES[error.field] ?? "Please check the form.";
    return w.render(
      "Sign up",
      <SignUpForm csrf={w.csrf} next={next} values={form} error={message} />,
      error.kind === "conflict" ? 409 : 400,
    );
  }
}

/** GET /login (a signed-in athlete goes on to `next`). */
async function signInPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  const next = localTarget(c.req.query("next"), "/");
  if (w.athlete) return redirectLocal(c, next, "/", 302);
  return w.render("Sign in", <SignInForm csrf={w.csrf} next={next} />);
}

/** POST /login: throttled per address and account; an unknown e-mail costs as much as a wrong password. */
async function signInForm(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  const form = await formOf(c);
  const refused = await csrfRefused(w, form, true);
  if (refused) return refused;
  const next = localTarget(form.next, "/");
  const email = (form.email ?? "").trim();
  const address = clientAddress(c);
  const throttle = signInThrottle(platform);
  const wait = throttle.waitFor(address, email);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    c.header("retry-after", String(seconds));
    return w.render(
      "Sign in",
      <SignInForm
        csrf={w.csrf}
        next={next}
        email={email}
        error={`Too many failed sign-ins for this account. Try again in ${seconds} seconds.`}
      />,
      429,
    );
  }
  const row = await credentialsByEmail(platform.db, email);
  const cost = passwordCostOf(platform.config);
  const checked = await verifyPassword(form.password ?? "", row?.password_hash ?? await dummyHash(cost), cost);
  if (!row || !checked.ok) {
    throttle.failed(address, email);
    return w.render(
      "Sign in",
      <SignInForm csrf={w.csrf} next={next} email={email} error="Wrong e-mail or password." />,
      401,
    );
  }
  throttle.succeeded(address, email);
  // A hash made with weaker parameters than today's is replaced now that the password is known.
  if (checked.rehash) {
    await rehashPassword(
      platform,
      Number(row.id),
      await hashPassword(form.password ?? "", cost),
      webActor(Number(row.id)),
    );
  }
  await signIn(c, platform, Number(row.id));
  return redirectLocal(c, next, "/", 303);
}

/** POST /logout. */
async function signOutForm(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.session) return c.redirect("/login", 303); // nothing to end
  const form = await formOf(c);
  const refused = await csrfRefused(w, form);
  if (refused) return refused;
  // The page tokens of this session die with it (server/web/app/token.ts).
  if (w.athlete) await revokeSessionTokens(c, platform, w.athlete.id);
  await signOut(c, platform);
  return c.redirect("/login", 303);
}

/** Sign up, sign in and sign out, mounted at `/`. */
export function accountPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/register", (c) => signUpPage(c, platform));
  pages.post("/register", (c) => signUp(c, platform));
  pages.get("/login", (c) => signInPage(c, platform));
  pages.post("/login", (c) => signInForm(c, platform));
  pages.post("/logout", (c) => signOutForm(c, platform));
  return pages;
}

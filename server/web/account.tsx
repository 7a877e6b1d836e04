import type { Hono } from "hono";
import { DomainError } from "../../events/decider.ts";
import { createAthlete } from "../actions/athletes.ts";
import type { Platform } from "../platform.ts";
import { verifyPassword } from "../security.ts";
import { csrfRefused, formOf, safeNext, web } from "./context.tsx";
import { Csrf, ErrorBox } from "./layout.tsx";
import { signIn, signOut } from "./session.ts";
import { signInThrottle } from "./throttle.ts";

// A well-formed scrypt hash that matches no password: unknown e-mails cost as much as wrong passwords.
const DUMMY_HASH =
  "scrypt$16384$8$1$6b1c7c0d51a4e3a1f0f0c5b1d2e3f4a5$5f3c9a1e2b7d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";

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
        <input type="text" id="firstname" name="firstname" value={v.firstname ?? ""} required autocomplete="given-name" />
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
export function mountAccountPages(app: Hono, platform: Platform): void {
  app.get("/register", async (c) => {
    const w = await web(c, platform);
    const next = safeNext(c.req.query("next"), "/settings/api");
    return w.render("Sign up", <SignUpForm csrf={w.session.csrf} next={next} values={{}} />);
  });

  app.post("/register", async (c) => {
    const w = await web(c, platform);
    const form = await formOf(c);
    const refused = csrfRefused(w, form);
    if (refused) return refused;
    const next = safeNext(form.next, "/settings/api");
    try {
      const athleteId = await createAthlete(platform, {
        firstname: form.firstname ?? "",
        lastname: form.lastname ?? "",
        email: (form.email ?? "").trim(),
        password: form.password ?? "",
      }, "web");
      signIn(c, platform, athleteId);
      return c.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const message = error.kind === "conflict"
        ? "An account with this e-mail already exists. Sign in instead."
        : FIELD_MESSAGES[error.field] ?? "Please check the form.";
      return w.render("Sign up", <SignUpForm csrf={w.session.csrf} next={next} values={form} error={message} />,
        error.kind === "conflict" ? 409 : 400);
    }
  });

  app.get("/login", async (c) => {
    const w = await web(c, platform);
    const next = safeNext(c.req.query("next"), "/settings/apps");
    if (w.athlete) return c.redirect(next, 302);
    return w.render("Sign in", <SignInForm csrf={w.session.csrf} next={next} />);
  });

  app.post("/login", async (c) => {
    const w = await web(c, platform);
    const form = await formOf(c);
    const refused = csrfRefused(w, form);
    if (refused) return refused;
    const next = safeNext(form.next, "/settings/apps");
    const email = (form.email ?? "").trim();
    const throttle = signInThrottle(platform);
    const wait = throttle.waitFor(email);
    if (wait > 0) {
      c.header("retry-after", String(Math.ceil(wait / 1000)));
      return w.render("Sign in", <SignInForm csrf={w.session.csrf} next={next} email={email}
        error={`Too many failed sign-ins for this account. Try again in ${Math.ceil(wait / 1000)} seconds.`} />, 429);
    }
    const [row] = await platform.db.query<{ id: number; password_hash: string }>(
      "select id, password_hash from athletes where lower(email) = lower($1)",
      [email],
    );
    const ok = await verifyPassword(form.password ?? "", row?.password_hash ?? DUMMY_HASH);
    if (!row || !ok) {
      throttle.failed(email);
      return w.render("Sign in", <SignInForm csrf={w.session.csrf} next={next} email={email}
        error="Wrong e-mail or password." />, 401);
    }
    throttle.succeeded(email);
    signIn(c, platform, Number(row.id));
    return c.redirect(next, 303);
  });

  app.post("/logout", async (c) => {
    const w = await web(c, platform);
    const form = await formOf(c);
    const refused = csrfRefused(w, form);
    if (refused) return refused;
    signOut(c, platform);
    return c.redirect("/login", 303);
  });

  app.get("/settings", (c) => c.redirect("/settings/apps", 302));
}

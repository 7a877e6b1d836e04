/**
 * A tiny form-posting user agent for the OAuth pages (cookies kept, redirects not followed), so API
 * tests can sign in and approve without a browser. The browser suite covers the real thing.
 */
export interface PageResponse {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, form?: Record<string, string>): Promise<PageResponse> {
    const headers: Record<string, string> = { accept: "text/html" };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body: form ? new URLSearchParams(form) : undefined,
      redirect: "manual",
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return { status: res.status, location: res.headers.get("location"), text: await res.text(), headers: res.headers };
  }

  get(path: string) {
    return this.request("GET", path);
  }

  post(path: string, form: Record<string, string>) {
    return this.request("POST", path, form);
  }

  /** The CSRF token of the last form on a page. */
  static csrf(html: string): string {
    const all = [...html.matchAll(/name="_csrf" value="([^"]+)"/g)];
    if (!all.length) throw new Error("no CSRF token on the page");
    return all[all.length - 1][1];
  }

  /** The hidden fields of the consent form. */
  static hiddenFields(html: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
      out[m[1]] = m[2].replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll(
        "&gt;",
        ">",
      ).replaceAll("&#39;", "'");
    }
    return out;
  }

  async signIn(email: string, password: string): Promise<PageResponse> {
    const page = await this.get("/login");
    return this.post("/login", { _csrf: WebClient.csrf(page.text), email, password, next: "/settings/apps" });
  }

  /** Opens /oauth/authorize and approves (or denies); returns the redirect's URL. */
  async authorize(query: Record<string, string>, decision: "approve" | "deny" = "approve"): Promise<URL> {
    const page = await this.get(`/oauth/authorize?${new URLSearchParams(query)}`);
    if (page.status === 302 && page.location) return new URL(page.location);
    if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${page.text.slice(0, 300)}`);
    const fields = WebClient.hiddenFields(page.text);
    const extra: Record<string, string> = {};
    for (const m of page.text.matchAll(/name="(grant\.[^"]+)" value="1" checked/g)) extra[m[1]] = "1";
    const res = await this.post("/oauth/authorize", { ...fields, ...extra, decision });
    if (res.status !== 302 || !res.location) {
      throw new Error(`consent answered ${res.status}: ${res.text.slice(0, 300)}`);
    }
    return new URL(res.location);
  }
}

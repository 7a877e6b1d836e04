import type { Child } from "hono/jsx";
import { headerNav, type ShellOptions } from "./app/shell.ts";

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f7f9}
header{background:#b83a07;color:#fff}
header .bar{max-width:1100px;margin:0 auto;padding:.6rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header a,header button.link{color:#fff;text-decoration:none;font-weight:600}
header .brand{font-size:1.15rem;margin-right:auto}
header a:hover,header button.link:hover{text-decoration:underline}
header a:focus-visible,header button:focus-visible{outline:3px solid #fff;outline-offset:2px}
header nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:0;padding:0}
header nav a[aria-current=page]{border-bottom:3px solid #fff}
header form.signout{margin:0}
.skip{position:absolute;left:-999px;top:0;background:#fff;color:#1f2328;padding:.5rem 1rem;z-index:2000}
.skip:focus{left:.5rem;top:.5rem}
main:focus{outline:none}
@media (max-width:760px){
  header .who{display:none}
  header .bar{gap:.5rem 1rem}
  header .bar>nav{order:2;flex-basis:calc(100% + 2rem);overflow-x:auto;margin:0 -1rem;padding:0 1rem .3rem;background:linear-gradient(to right,#b83a07 55%,rgba(184,58,7,0)) left/3rem 100% no-repeat local,linear-gradient(to left,#b83a07 55%,rgba(184,58,7,0)) right/3rem 100% no-repeat local,linear-gradient(to right,rgba(0,0,0,.55),rgba(0,0,0,0)) left/1.75rem 100% no-repeat scroll,linear-gradient(to left,rgba(0,0,0,.55),rgba(0,0,0,0)) right/1.75rem 100% no-repeat scroll,#b83a07}
  header nav ul{flex-wrap:nowrap}
  header nav li{white-space:nowrap}
  header .bar>nav li:last-child{padding-right:1rem}
}
main{max-width:760px;margin:1.5rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:1.25rem 1.5rem;margin-bottom:1.25rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password],input[type=url],textarea{width:100%;padding:.55rem .65rem;border:1px solid #b8bfc7;border-radius:6px;font:inherit}
textarea{min-height:5rem}
.hint{color:#57606a;font-size:.875rem;margin:.2rem 0 0}
button,.button{display:inline-block;background:#b83a07;color:#fff;border:0;border-radius:6px;padding:.55rem 1.1rem;font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:#1f2328;border:1px solid #b8bfc7}
button.danger{background:#cf222e}
button.link{background:none;padding:0;border:0}
.actions{display:flex;gap:.75rem;margin-top:1.25rem;flex-wrap:wrap}
.error{background:#ffebe9;border:1px solid #ff8182;color:#82071e;border-radius:6px;padding:.6rem .8rem;margin-bottom:1rem}
.notice{background:#dafbe1;border:1px solid #4ac26b;color:#116329;border-radius:6px;padding:.6rem .8rem;margin-bottom:1rem}
.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;border:1px solid #dde1e6;border-radius:4px;padding:.15rem .4rem;word-break:break-all}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.5rem 1rem;margin:0}
dt{font-weight:600}dd{margin:0}
ul.scopes{list-style:none;padding:0;margin:.5rem 0}
ul.scopes li{padding:.4rem 0;border-bottom:1px solid #eef0f2}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #eef0f2;vertical-align:top}
td{overflow-wrap:anywhere}
td button{white-space:nowrap;overflow-wrap:normal}
@media (max-width:600px){
  table.stacked,table.stacked tbody,table.stacked tr,table.stacked td{display:block;width:auto}
  table.stacked thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
  table.stacked tr{border-bottom:1px solid #eef0f2;padding:.5rem 0}
  table.stacked td{border:0;padding:.25rem 0}
}
.muted{color:#57606a}
pre{overflow-x:auto;background:#f6f8fa;border:1px solid #dde1e6;border-radius:6px;padding:.6rem .8rem;font-size:.85rem}
`;

export interface PageProps {
  title: string;
  /** The signed-in athlete, or null. */
  athlete: { id: number; name: string } | null;
  /** The current main navigation entry (Settings for /settings/*). */
  current?: ShellOptions["current"];
  csrf: string;
  children?: Child;
}

/** The page frame: header with navigation (sign out is a POST with the CSRF token) and the content. */
export function Page(props: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Fitness Platform</title>
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          {/* The app's main navigation (server/web/app/shell.ts), the same on every page; the form pages are under Settings. */}
          <div
            class="bar"
            dangerouslySetInnerHTML={{
              __html: '<a class="brand" href="/">Fitness Platform</a>' +
                headerNav(props.athlete, props.csrf, props.current),
            }}
          />
        </header>
        <main id="main" tabindex={-1}>{props.children}</main>
      </body>
    </html>
  );
}

export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

export function ErrorBox(props: { message?: string | null }) {
  return props.message ? <div class="error" role="alert">{props.message}</div> : null;
}

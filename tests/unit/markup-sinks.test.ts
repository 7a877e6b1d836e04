import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Issue 29 item 4: user text reaches every page as text only. Every place where a string becomes
 * markup — innerHTML and its kin, Leaflet's tooltips, popups and attribution (a string is HTML to
 * Leaflet), dangerouslySetInnerHTML, hono's raw/html, and HTML built in template literals on the
 * server — may only be given a constant, text made safe on the spot (escapeHtml for server HTML,
 * textNode() of app.js for Leaflet), or one of the few reviewed expressions below. Addresses (href,
 * src, action, location.assign) must stay on this origin ("/…", "#…", a pathname, avatarSrc), so no
 * user-given "javascript:" link. Found with the TypeScript parser (not a regex) in the web app's
 * scripts and the server's page code.
 */
const ROOT = resolve(import.meta.dirname!, "../..");
const SCANNED = ["server/web"];
const SKIP = /swagger-ui-bundle\.js$/; // vendored (Swagger UI renders the API's own document)

/** Properties that parse what they are given as HTML. */
const HTML_PROPERTIES = new Set(["innerHTML", "outerHTML", "srcdoc"]);
/** Calls whose argument (at the index) is parsed as HTML. */
const HTML_CALLS: Record<string, number> = {
  insertAdjacentHTML: 1,
  write: 0,
  writeln: 0,
  createContextualFragment: 0,
  parseFromString: 0,
  raw: 0,
  // Leaflet: a string is set with innerHTML; a DOM node is inserted as it is.
  bindTooltip: 0,
  bindPopup: 0,
  setContent: 0,
  setTooltipContent: 0,
  setPopupContent: 0,
  setPrefix: 0,
  addAttribution: 0,
};
/** Object properties whose string value becomes HTML (Leaflet's attribution and divIcon, React/hono's __html). */
const HTML_OPTIONS = new Set(["attribution", "html", "__html"]);
/** Attributes and properties that take an address (a "javascript:" one runs script). */
const URL_NAMES = new Set(["href", "src", "action", "formaction"]);

/** Calls that make their argument safe for where it goes. */
const SAFE_CALLS = new Set(["escapeHtml", "textNode"]);

/**
 * Reviewed expressions (file, exact text): none carries user text. Each must still be found (a
 * stale entry fails), so the list cannot quietly outgrow the code.
 */
const REVIEWED: { file: string; text: string; why: string }[] = [
  {
    file: "server/web/app/assets/map.js",
    text: "config.tiles.attribution",
    why: "the operator's MAP_TILE_ATTRIBUTION (HTML by design: a link to the tiles' licence)",
  },
  {
    file: "server/web/heatmap-viewer/viewer.js",
    text: 'config.baseMapAttribution || ""',
    why: "the operator's HEATMAP_BASEMAP_ATTRIBUTION",
  },
  {
    file: "server/web/heatmap-viewer/viewer.js",
    text: '"Heatmap: " + config.activitiesCount + " public activities"',
    why: "a count (a number in the server's JSON)",
  },
  {
    file: "server/web/app/assets/route.js",
    text: "url",
    why: "a blob: address from URL.createObjectURL of the export just fetched",
  },
  {
    file: "server/web/app/assets/activity-tools.js",
    text: "url",
    why: "a blob: address from URL.createObjectURL of the activity export just fetched",
  },
  {
    file: "server/web/app/shell.ts",
    text: "tiles.attribution",
    why: "the operator's MAP_TILE_ATTRIBUTION, into the page's JSON config for map.js",
  },
  {
    file: "server/web/heatmaps.ts",
    text: 'process.env.HEATMAP_BASEMAP_ATTRIBUTION ?? ""',
    why: "the operator's HEATMAP_BASEMAP_ATTRIBUTION",
  },
  { file: "server/web/app/shell.ts", text: "nav", why: "the navigation built above from constants and escapeHtml" },
  {
    file: "server/web/app/shell.ts",
    text: 'n.href.replace(":me", String(athlete.id))',
    why: "a constant path with the athlete's numeric id",
  },
  {
    file: "server/web/layout.tsx",
    text: '\'<a class="brand" href="/">Fitness Platform</a>\' + headerNav(props.athlete, props.csrf, props.current)',
    why: "a constant link and the shell's navigation (constants and escapeHtml)",
  },
  { file: "server/web/app/shell.ts", text: "n.label", why: "the constant NAV labels" },
  {
    file: "server/web/app/shell.ts",
    text: "m",
    why: "the page's further module scripts: asset names from the server's own page code (moreScripts)",
  },
  { file: "server/web/app/shell.ts", text: "styles", why: "link tags of constant asset names" },
  { file: "server/web/app/shell.ts", text: "s", why: "a constant asset name (styles)" },
  {
    file: "server/web/app/shell.ts",
    text: "o.body",
    why: "the page's server-rendered content, HTML built by its caller from constants and escapeHtml",
  },
  {
    file: "server/web/app/shell.ts",
    text: 'toJson(config).replace(/</g, "\\\\u003c")',
    why: 'JSON in a data script (toJson: ids beyond 2^53 as digits): no "<" can close it',
  },
  { file: "server/web/app/shell.ts", text: "l", why: "a constant asset name (libs)" },
  { file: "server/web/app/shell.ts", text: "o.script", why: "a constant asset name" },
  { file: "server/web/app/index.ts", text: 'o.script.replace(".js", "")', why: "a constant asset name" },
  { file: "server/web/heatmaps.ts", text: "head", why: "constant head markup of the callers" },
  {
    file: "server/web/heatmaps.ts",
    text: "body",
    why: "the page's HTML, built from constants, escapeHtml and numbers",
  },
  { file: "server/web/heatmaps.ts", text: "row.activities_count", why: "a number (read model integer)" },
  { file: "server/web/heatmaps.ts", text: "row.tiles_count", why: "a number (read model integer)" },
  { file: "server/web/heatmaps.ts", text: "describe(row)", why: "HTML made with escapeHtml and numbers" },
  {
    file: "server/web/heatmaps.ts",
    text: 'JSON.stringify(config).replace(/</g, "\\\\u003c")',
    why: 'JSON in a data script: no "<" can close it',
  },
  { file: "server/web/docs.ts", text: "r.method", why: "an HTTP method of the route table" },
  { file: "server/web/docs.ts", text: "scope", why: "a permission name of the route table" },
  { file: "server/web/docs.ts", text: "rows", why: "rows built from escapeHtml" },
  { file: "server/web/docs.ts", text: "body", why: "the page's HTML, built from constants and escapeHtml" },
  { file: "server/web/docs.ts", text: "s", why: "a constant asset name" },
  { file: "server/web/docs.ts", text: "routeTable(routes)", why: "HTML built from escapeHtml" },
  { file: "server/web/docs.ts", text: "scopes", why: "rows built from escapeHtml" },
  { file: "server/web/docs.ts", text: "authorize", why: "built from escapeHtml(PUBLIC_URL) and constants" },
  { file: "server/web/docs.ts", text: "method", why: "one of the constant HTTP method names the loop walks" },
  {
    file: "server/web/docs.ts",
    text: "method.toUpperCase()",
    why: "one of the constant HTTP method names the loop walks",
  },
  { file: "server/web/docs.ts", text: 'ops.join("")', why: "list items built from those method names and escapeHtml" },
  { file: "server/web/docs.ts", text: "head", why: "constant head markup of the callers" },
  {
    file: "server/web/docs.ts",
    text: "operationList(doc)",
    why: "HTML built from constant method names and escapeHtml",
  },
  { file: "server/web/heatmaps.ts", text: "empty", why: "a constant sentence or nothing" },
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : /\.(tsx?|js)$/.test(e.name) && !SKIP.test(e.name)
      ? [join(dir, e.name)]
      : []
  );
}

export interface Sink {
  where: string;
  text: string;
}

/** The raw-HTML sinks of `source` given anything but a constant or safe text (file name for the kind of parse). */
export function markupSinks(source: string, fileName = "x.ts"): Sink[] {
  const kind = fileName.endsWith(".tsx")
    ? ts.ScriptKind.TSX
    : fileName.endsWith(".js")
    ? ts.ScriptKind.JS
    : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  // Module-level constants (a name declared inside a function could be another binding).
  const consts = new Map<string, ts.Expression>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const d of statement.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);
    }
  }

  const constant = (e: ts.Expression, depth = 0): boolean => {
    if (depth > 8) return false;
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return constant(e.expression, depth + 1);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return true;
    if (ts.isTemplateExpression(e)) return e.templateSpans.every((s) => constant(s.expression, depth + 1));
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return constant(e.left, depth + 1) && constant(e.right, depth + 1);
    }
    if (ts.isConditionalExpression(e)) return constant(e.whenTrue, depth + 1) && constant(e.whenFalse, depth + 1);
    if (ts.isIdentifier(e)) {
      const init = consts.get(e.text);
      return !!init && constant(init, depth + 1);
    }
    return false;
  };
  /** A template literal that builds HTML: its own ${…} are checked where it stands. */
  const htmlTemplate = (e: ts.Node): e is ts.TemplateExpression =>
    ts.isTemplateExpression(e) &&
    /<[a-zA-Z!/]/.test([e.head.text, ...e.templateSpans.map((s) => s.literal.text)].join("\u0000"));
  const safe = (e: ts.Expression): boolean => {
    if (constant(e)) return true;
    if (ts.isParenthesizedExpression(e)) return safe(e.expression);
    if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && SAFE_CALLS.has(e.expression.text)) return true;
    if (ts.isConditionalExpression(e)) return safe(e.whenTrue) && safe(e.whenFalse);
    if (htmlTemplate(e)) return true;
    if (ts.isTemplateExpression(e)) return e.templateSpans.every((s) => safe(s.expression));
    // list.map((x) => `<li>${…}</li>`).join(…): the mapped template is checked where it stands.
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === "join") {
      const inner = e.expression.expression;
      if (
        ts.isCallExpression(inner) && ts.isPropertyAccessExpression(inner.expression) &&
        inner.expression.name.text === "map"
      ) {
        const fn = inner.arguments[0];
        return !!fn && ts.isArrowFunction(fn) && ts.isExpression(fn.body) && safe(fn.body);
      }
    }
    return false;
  };

  /** An address on this origin: "/…", "#…", "?…" (a literal or a template starting so), a pathname, avatarSrc(…). */
  const safeUrl = (e: ts.Expression): boolean => {
    if (ts.isParenthesizedExpression(e)) return safeUrl(e.expression);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) {
      return !/^\s*(javascript|data|vbscript):/i.test(e.text);
    }
    if (ts.isTemplateExpression(e)) {
      if (e.head.text) return /^[/#?](?!\/)/.test(e.head.text) || e.head.text === "/";
      return safeUrl(e.templateSpans[0].expression) && /^[?#]/.test(e.templateSpans[0].literal.text);
    }
    if (ts.isPropertyAccessExpression(e) && e.name.text === "pathname") return true;
    if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "avatarSrc") return true;
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) {
      return safeUrl(e.left) && safeUrl(e.right);
    }
    if (ts.isConditionalExpression(e)) return safeUrl(e.whenTrue) && safeUrl(e.whenFalse);
    return false;
  };

  const found: Sink[] = [];
  const report = (node: ts.Node, value: ts.Node) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart());
    found.push({ where: `${fileName}:${line + 1}`, text: value.getText() });
  };
  const visit = (node: ts.Node) => {
    // el.innerHTML = value (and +=)
    if (
      ts.isBinaryExpression(node) && ts.isPropertyAccessExpression(node.left) &&
      HTML_PROPERTIES.has(node.left.name.text) &&
      (node.operatorToken.kind === ts.SyntaxKind.EqualsToken ||
        node.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken)
    ) {
      if (!safe(node.right)) report(node, node.right);
    }
    // el.insertAdjacentHTML(where, value), layer.bindTooltip(value), raw(value) …
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
        ? callee.text
        : "";
      const index = HTML_CALLS[name];
      const arg = index === undefined ? undefined : node.arguments[index];
      // document.write only (not stream.write); parseFromString only for HTML/XML documents is still markup.
      const relevant = name === "write" || name === "writeln"
        ? ts.isPropertyAccessExpression(callee) && callee.expression.getText() === "document"
        : true;
      if (arg && relevant && !safe(arg)) report(node, arg);
    }
    // { attribution: value }, { html: value }, { __html: value }
    if (
      ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      HTML_OPTIONS.has(node.name.text)
    ) {
      if (!safe(node.initializer)) report(node, node.initializer);
    }
    // html`…` and raw`…` (hono/html): a tagged template is markup whatever it holds.
    if (ts.isTaggedTemplateExpression(node) && ["html", "raw"].includes(node.tag.getText())) {
      if (!constant(node.template as ts.Expression)) report(node, node.template);
    }
    // Template literals that build HTML: each ${…} is a constant or escaped text.
    if (htmlTemplate(node) && !ts.isTaggedTemplateExpression(node.parent)) {
      {
        for (const span of node.templateSpans) if (!safe(span.expression)) report(span, span.expression);
      }
    }
    // Addresses: { href: value } (h() and friends), <a href={value}>, el.src = value, location.assign(value).
    if (
      ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      URL_NAMES.has(node.name.text)
    ) {
      if (!safeUrl(node.initializer)) report(node, node.initializer);
    }
    if (ts.isJsxAttribute(node) && URL_NAMES.has(node.name.getText()) && node.initializer) {
      const value = ts.isJsxExpression(node.initializer) ? node.initializer.expression : node.initializer;
      if (value && !safeUrl(value)) report(node, value);
    }
    if (
      ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      URL_NAMES.has(node.left.name.text) && !safeUrl(node.right)
    ) report(node, node.right);
    if (
      ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
      node.expression.expression.getText() === "location" &&
      ["assign", "replace"].includes(node.expression.name.text) && node.arguments[0] && !safeUrl(node.arguments[0])
    ) report(node, node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("user text reaches pages as text: no raw-HTML sink takes anything but a constant or escaped text", () => {
  it("the finder sees each kind of sink given user text, and lets constants and safe text through", () => {
    const planted = [
      "el.innerHTML = s.name;",
      "el.outerHTML = `<b>${name}</b>`;",
      "el.innerHTML += row.name;",
      "el.insertAdjacentHTML('beforeend', comment.text);",
      "document.write(title);",
      "line.bindTooltip(s.name);",
      "marker.bindPopup(`<b>${a.name}</b>`);",
      "tip.setContent(club.description);",
      "map.attributionControl.setPrefix(prefix);",
      "L.tileLayer(url, { attribution: athlete.firstname });",
      "L.divIcon({ html: route.name });",
      "const page = `<h1>${segment.name}</h1>`;",
      "const p = html`<p>${name}</p>`;",
      "raw(description);",
      "h('a', { href: app.website }, 'site');",
      "h('a', { href: `${athlete.url}/x` }, 'x');",
      "img.src = photo.url;",
      "location.assign(next);",
      "h('a', { href: 'javascript:alert(1)' });",
    ];
    for (const source of planted) expect(markupSinks(source, "planted.js"), source).toHaveLength(1);
    expect(markupSinks("const x = <style dangerouslySetInnerHTML={{ __html: css }} />;", "planted.tsx")).toHaveLength(
      1,
    );
    expect(markupSinks("const x = <a href={row.website}>site</a>;", "planted.tsx")).toHaveLength(1);

    const fine = [
      "el.innerHTML = '';",
      "line.bindTooltip('Start'); line.bindTooltip(textNode(s.name));",
      "const CSS = `a{b:c}`; const x = { __html: CSS };",
      "const page = `<h1>${escapeHtml(segment.name)}</h1><p>${mine ? 'yours' : 'theirs'}</p>`;",
      "const rows = list.map((r) => `<li>${escapeHtml(r.name)}</li>`).join(''); const page = `<ul>${list.map((r) => `<li>${escapeHtml(r.name)}</li>`).join('')}</ul>`;",
      "const label = `Route of ${a.name}`; el.textContent = s.name; h('li', {}, comment.text);",
      "stream.write(chunk); document.title = `${seg.name} · Fitness Platform`;",
      "h('a', { href: `/athletes/${a.id}` }); h('a', { href: '#edit' }); h('img', { src: avatarSrc(p.profile) ?? '' });",
      "img.src = `${avatarSrc(me.profile)}?v=${Date.now()}`; location.assign(`/segments/${s.id}`); h('a', { href: new URL(m.web_url).pathname });",
    ];
    for (const source of fine) expect(markupSinks(source, "fine.js"), source).toEqual([]);
    expect(markupSinks("const CSS = `a{}`; const x = <style dangerouslySetInnerHTML={{ __html: CSS }} />;", "fine.tsx"))
      .toEqual([]);
    expect(markupSinks("const x = <a href={`/settings/import/${r.id}`}>{r.fileName}</a>;", "fine.tsx")).toEqual([]);
  });

  it("none in the web app's scripts and the server's pages but the reviewed ones", () => {
    const all = SCANNED.flatMap((folder) => files(join(ROOT, folder)));
    expect(all.length).toBeGreaterThan(30);
    const found = all.flatMap((path) => markupSinks(readFileSync(path, "utf8"), relative(ROOT, path)));
    // Compared without layout (the formatter may wrap an expression over lines).
    const same = (a: string, b: string) => a.replace(/\s+/g, " ") === b.replace(/\s+/g, " ");
    const reviewed = (s: Sink) => REVIEWED.some((r) => s.where.startsWith(`${r.file}:`) && same(s.text, r.text));
    expect(found.filter((s) => !reviewed(s)).map((s) => `${s.where}: ${s.text}`)).toEqual([]);
    const stale = REVIEWED.filter((r) => !found.some((s) => s.where.startsWith(`${r.file}:`) && same(s.text, r.text)));
    expect(stale.map((r) => `${r.file}: ${r.text}`)).toEqual([]);
  });
});

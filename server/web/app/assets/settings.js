// Settings: profile and defaults (PUT /v3/athlete), privacy zones on a map, gear, links to apps and import.
import {
  api,
  avatarSrc,
  config,
  gearBadges,
  h,
  readableName,
  ready,
  showFailure,
  visibilityField,
  wholeDistance,
} from "./app.js";
import { baseMap } from "./map.js";

const root = document.getElementById("settings");
const TYPES = ["Ride", "Run", "Walk", "Hike", "Swim", "VirtualRide", "EBikeRide", "Workout"];

function profile(me) {
  const status = h("span", { id: "profile-status", role: "status" });
  const form = h(
    "form",
    { class: "stack", id: "profile-form" },
    h(
      "p",
      {},
      h("strong", {}, `${me.firstname} ${me.lastname}`),
      me.city ? ` · ${me.city}` : "",
      me.country ? `, ${me.country}` : "",
    ),
    h(
      "div",
      { class: "row" },
      // The API answers weight 0 for "not set": the field stays empty (optional), never a "0" its minimum refuses.
      h(
        "div",
        {},
        h("label", { for: "weight" }, "Weight (kg, optional)"),
        h("input", {
          type: "number",
          id: "weight",
          min: 1,
          max: 400,
          step: "0.1",
          value: me.weight > 0 ? me.weight : "",
        }),
      ),
      h(
        "div",
        {},
        h("label", { for: "default-type" }, "Default activity type"),
        h(
          "select",
          { id: "default-type" },
          TYPES.map((t) =>
            h("option", {
              value: t,
              selected: t === (me.default_activity_type ?? config.defaults?.activityType ?? "Ride"),
            }, readableName(t))
          ),
        ),
      ),
    ),
    h(
      "div",
      {},
      h("label", { for: "units" }, "Units"),
      h(
        "select",
        { id: "units" },
        h(
          "option",
          { value: "meters", selected: me.measurement_preference !== "feet" },
          "Metric (km, m, km/h, min/km)",
        ),
        h(
          "option",
          { value: "feet", selected: me.measurement_preference === "feet" },
          "Imperial (mi, ft, mi/h, min/mi; swims in yd)",
        ),
      ),
    ),
    visibilityField(
      "default-visibility",
      me.default_visibility ?? config.defaults?.visibility ?? "everyone",
      "New activities you upload or create, unless you choose otherwise.",
    ),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Save"), status),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      default_activity_type: form.querySelector("#default-type").value,
      default_visibility: form.querySelector("#default-visibility").value,
      measurement_preference: form.querySelector("#units").value,
    };
    const w = form.querySelector("#weight").value;
    if (w) body.weight = Number(w);
    try {
      await api("/athlete", { method: "PUT", body });
      status.className = "ok";
      status.textContent = "Saved.";
    } catch (error) {
      status.className = "error";
      status.textContent = error.message;
    }
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "profile-title" },
    h("h2", { id: "profile-title" }, "Profile and defaults"),
    form,
  );
}

async function zones(section) {
  const list = await api("/athlete/privacy_zones");
  const L = window.L;
  const mapBox = h("div", {
    id: "zones-map",
    style: "height:320px;border-radius:8px",
    role: "region",
    "aria-label": "Privacy zones map: click to place a new zone",
  });
  const lat = h("input", { type: "number", id: "zone-lat", step: "any", required: true, min: -90, max: 90 });
  const lng = h("input", { type: "number", id: "zone-lng", step: "any", required: true, min: -180, max: 180 });
  const radius = h("input", { type: "number", id: "zone-radius", value: 500, min: 1, max: 20000, required: true });
  const status = h("span", { id: "zone-status", role: "status" });
  const form = h(
    "form",
    { class: "stack", id: "zone-form" },
    h(
      "p",
      { class: "muted" },
      "Positions inside a zone are hidden from everyone else (map, streams, segments, heatmaps). Click the map to place a zone, or type its centre.",
    ),
    h(
      "div",
      { class: "row" },
      h("div", {}, h("label", { for: "zone-lat" }, "Latitude"), lat),
      h("div", {}, h("label", { for: "zone-lng" }, "Longitude"), lng),
      h("div", {}, h("label", { for: "zone-radius" }, "Radius (m)"), radius),
    ),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Add zone"), status),
  );
  const ul = h(
    "ul",
    { id: "zones", class: "feed-list" },
    list.map((z) =>
      h(
        "li",
        { class: "comment" },
        `Zone around ${Number(z.lat).toFixed(4)}, ${Number(z.lng).toFixed(4)} · ${Math.round(z.radius)} m `,
        h("button", {
          type: "button",
          class: "link",
          style: "color:#b42318",
          onclick: async () => {
            await api(`/athlete/privacy_zones/${z.id}`, { method: "DELETE" });
            await zones(section);
          },
        }, "Remove"),
      )
    ),
  );
  section.replaceChildren(h("h2", { id: "zones-title" }, "Privacy zones"), mapBox, form, ul);
  const map = baseMap(mapBox);
  // The view first (a circle's bounds need none: they come from its centre and radius).
  if (list.length) {
    const bounds = L.latLngBounds(list.map((z) => L.latLng(z.lat, z.lng).toBounds(z.radius * 2)));
    map.fitBounds(bounds, { padding: [30, 30], maxZoom: 14 });
  } else map.setView([30, 0], 2);
  for (const z of list) L.circle([z.lat, z.lng], { radius: z.radius, color: "#b42318" }).addTo(map);
  let pending;
  map.on("click", (e) => {
    lat.value = e.latlng.lat.toFixed(5);
    lng.value = e.latlng.lng.toFixed(5);
    pending?.remove();
    pending = L.circle(e.latlng, { radius: Number(radius.value) || 500, color: "#0a58ca", dashArray: "4" }).addTo(map);
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await api("/athlete/privacy_zones", {
        method: "POST",
        body: { lat: Number(lat.value), lng: Number(lng.value), radius: Number(radius.value) },
      });
      await zones(section);
    } catch (error) {
      status.className = "error";
      status.textContent = error.message;
    }
  });
}

/** The profile picture: upload one (cropped to its centre square by the server) or go back to the default. */
function picture(me) {
  const status = h("span", { id: "picture-status", role: "status" });
  const img = h("img", {
    id: "picture",
    class: "avatar large",
    src: avatarSrc(me.profile) ?? "",
    alt: "Your profile picture",
    width: 124,
    height: 124,
  });
  const input = h("input", {
    type: "file",
    id: "picture-file",
    class: "visually-hidden",
    accept: "image/jpeg,image/png,image/gif",
  });
  const refresh = () => (img.src = `${avatarSrc(me.profile)}?v=${Date.now()}`);
  const remove = h("button", { type: "button", class: "secondary", id: "picture-remove" }, "Use the default picture");
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (!file) return;
    const form = new FormData();
    form.set("file", file);
    status.className = "";
    status.textContent = "Uploading…";
    try {
      await api("/athlete/picture", { method: "PUT", form });
      refresh();
      status.className = "ok";
      status.textContent = "Picture saved.";
    } catch (error) {
      status.className = "error";
      status.textContent = error.status === 400
        ? "That file is not a picture we can read (JPEG, PNG or GIF, at most 10 MB)."
        : error.message;
    } finally {
      input.value = "";
    }
  });
  remove.addEventListener("click", async () => {
    try {
      await api("/athlete/picture", { method: "DELETE" });
      refresh();
      status.className = "ok";
      status.textContent = "Back to the default picture.";
    } catch (error) {
      status.className = "error";
      status.textContent = error.message;
    }
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "picture-title" },
    h("h2", { id: "picture-title" }, "Profile picture"),
    h(
      "div",
      { class: "profile-head" },
      img,
      h(
        "div",
        { class: "stack" },
        h("p", { class: "muted" }, "A JPEG, PNG or GIF; its centre square is shown to others next to your activities."),
        h(
          "div",
          { class: "actions" },
          input,
          h("label", { class: "button", for: "picture-file" }, "Choose a picture"),
          remove,
        ),
        status,
      ),
    ),
  );
}

function gear(me) {
  const section = h("section", { class: "card", "aria-labelledby": "gear-title" });
  const draw = (bikes, shoes) => {
    const items = [...bikes.map((g) => ["Bike", g]), ...shoes.map((g) => ["Shoes", g])];
    const status = h("span", { id: "gear-status", role: "status" });
    const kind = h(
      "select",
      { id: "gear-kind" },
      h("option", { value: "bike" }, "Bike"),
      h("option", { value: "shoe" }, "Shoes"),
    );
    const name = h("input", { type: "text", id: "gear-name", required: true, maxlength: 255, autocomplete: "off" });
    const brand = h("input", { type: "text", id: "gear-brand", maxlength: 255, autocomplete: "off" });
    const model = h("input", { type: "text", id: "gear-model", maxlength: 255, autocomplete: "off" });
    const primary = h("input", { type: "checkbox", id: "gear-primary" });
    const form = h(
      "form",
      { class: "stack", id: "gear-form" },
      h(
        "div",
        { class: "row" },
        h("div", {}, h("label", { for: "gear-kind" }, "Kind"), kind),
        h("div", {}, h("label", { for: "gear-name" }, "Name"), name),
      ),
      h(
        "div",
        { class: "row" },
        h("div", {}, h("label", { for: "gear-brand" }, "Brand (optional)"), brand),
        h("div", {}, h("label", { for: "gear-model" }, "Model (optional)"), model),
      ),
      h("label", { class: "check" }, primary, "My default for new activities of this kind"),
      h("div", { class: "actions" }, h("button", { type: "submit" }, "Add gear"), status),
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        await api("/gear", {
          method: "POST",
          body: {
            kind: kind.value,
            name: name.value,
            brand_name: brand.value,
            model_name: model.value,
            primary: primary.checked,
          },
        });
        const fresh = await api("/athlete");
        draw(fresh.bikes ?? [], fresh.shoes ?? []);
        const added = document.getElementById("gear-status");
        added.className = "ok";
        added.textContent = "Added.";
        document.getElementById("gear-name").focus();
      } catch (error) {
        status.className = "error";
        status.textContent = error.message;
      }
    });
    section.replaceChildren(
      h("h2", { id: "gear-title" }, "Gear"),
      items.length
        ? h(
          "ul",
          { id: "gear" },
          items.map(([k, g]) =>
            h(
              "li",
              {},
              `${k}: `,
              h("a", { href: `/gear/${g.id}` }, g.name ?? g.id),
              `${g.primary ? " (default)" : ""} · ${wholeDistance(g.distance)}`,
              ...gearBadges(g),
            )
          ),
        )
        : h(
          "p",
          { class: "muted", id: "gear" },
          "No gear yet. Add your bikes and shoes: each activity can then name what you used.",
        ),
      h("h3", { class: "subhead" }, "Add a bike or shoes"),
      form,
    );
  };
  draw(me.bikes ?? [], me.shoes ?? []);
  return section;
}

async function main() {
  const me = await api("/athlete");
  const zonesSection = h(
    "section",
    { class: "card", id: "privacy-zones", "aria-labelledby": "zones-title" },
    h("h2", { id: "zones-title" }, "Privacy zones"),
  );
  root.replaceChildren(
    h("h1", {}, "Settings"),
    h(
      "div",
      { class: "grid2" },
      h(
        "div",
        {},
        picture(me),
        profile(me),
        gear(me),
        h(
          "section",
          { class: "card", "aria-labelledby": "apps-title" },
          h("h2", { id: "apps-title" }, "Apps and data"),
          h(
            "ul",
            {},
            h(
              "li",
              {},
              h("a", { href: "/settings/apps" }, "Connected apps"),
              " — applications you allowed to use your account; revoke them there.",
            ),
            h(
              "li",
              {},
              h("a", { href: "/settings/assistant" }, "Connect your AI assistant"),
              " — let Claude, ChatGPT or another assistant read your log.",
            ),
            h(
              "li",
              {},
              h("a", { href: "/settings/api" }, "My API application"),
              " — register your own client of the API.",
            ),
            h(
              "li",
              {},
              h("a", { href: "/docs/connect" }, "Connect your app"),
              " — the API reference and how an app signs in with OAuth.",
            ),
            h(
              "li",
              {},
              h("a", { href: "/settings/import" }, "Import an archive"),
              " — bring your activities from another service.",
            ),
          ),
        ),
        h(
          "section",
          { class: "card", id: "companion", "aria-labelledby": "companion-title" },
          h("h2", { id: "companion-title" }, "Desktop companion"),
          h(
            "p",
            {},
            "The companion watches your GPS device's folder and uploads each new activity once, then links to it here.",
          ),
          h(
            "ol",
            {},
            h(
              "li",
              {},
              "In the project folder run ",
              h("code", {}, "npm run companion:setup"),
              " then ",
              h("code", {}, "npm run companion:build"),
              " (or the headless ",
              h("code", {}, "npm run companion"),
              ").",
            ),
            h(
              "li",
              {},
              "Sign in to this server from the companion: its address is ",
              h("code", { id: "server-address" }, location.origin),
              ".",
            ),
            h("li", {}, "Plug in the device: new files upload by themselves."),
          ),
        ),
      ),
      zonesSection,
    ),
  );
  await zones(zonesSection);
  ready("settings");
}

main().catch((error) => showFailure(root, error));

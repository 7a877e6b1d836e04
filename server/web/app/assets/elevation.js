// The elevation profile of a segment or a route: altitude over distance (km), resized with its box.
import { h } from "./app.js";

/** Draws the profile into `box`, or says `emptyText` when there are no altitudes. */
export function elevationProfile(box, distance, altitude, emptyText) {
  if (!altitude?.length) {
    box.replaceChildren(h("p", { class: "muted" }, emptyText));
    return;
  }
  const plot = new window.uPlot(
    {
      width: Math.max(280, box.clientWidth),
      height: 160,
      legend: { show: false },
      scales: { x: { time: false } },
      axes: [{ values: (_u, v) => v.map((n) => `${n} km`) }, { size: 50 }],
      series: [{}, {
        label: "Elevation (m)",
        stroke: "#6e7781",
        fill: "rgba(110,119,129,.25)",
        width: 1.5,
        points: { show: false },
      }],
    },
    [(distance ?? []).map((x) => x / 1000), altitude],
    box,
  );
  let width = box.clientWidth;
  new ResizeObserver(() => {
    if (!box.clientWidth || box.clientWidth === width) return;
    width = box.clientWidth;
    plot.setSize({ width: Math.max(280, width), height: 160 });
  }).observe(box);
}

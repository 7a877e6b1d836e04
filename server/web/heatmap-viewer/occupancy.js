// Which heat tiles the viewer asks for. The server lists the tiles that may hold heat at one zoom
// (config.occupied: { z, tiles: [x · 2^z + y, …] }, a superset of the tiles drawn on, see
// TileRenderer.occupiedTiles); a tile of a closer zoom may hold heat when its ancestor there is
// listed, a tile of a farther zoom when a listed tile lies in its area grown by the brush's reach
// (4 px of that zoom, at least one listed tile). Without a list, every tile is asked for.
// A classic script (the viewer's CSP allows only this server's scripts): it sets
// window.heatmapMayHoldHeat; tests/unit/heatmap-occupancy.test.ts runs it against the renderer.
(function () {
  "use strict";
  window.heatmapMayHoldHeat = function (occupied) {
    if (!occupied) {
      return function () {
        return true;
      };
    }
    const oz = occupied.z, n = 2 ** oz, tiles = occupied.tiles, listed = new Set(tiles);
    return function (coords) {
      if (coords.z >= oz) {
        const shift = 2 ** (coords.z - oz);
        return listed.has(Math.floor(coords.x / shift) * n + Math.floor(coords.y / shift));
      }
      const span = 2 ** (oz - coords.z), grow = Math.ceil((4 * span) / 256);
      const x0 = coords.x * span - grow, x1 = (coords.x + 1) * span - 1 + grow;
      const y0 = coords.y * span - grow, y1 = (coords.y + 1) * span - 1 + grow;
      for (let i = 0; i < tiles.length; i++) {
        const x = Math.floor(tiles[i] / n), y = tiles[i] - x * n;
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) return true;
      }
      return false;
    };
  };
})();

import process from "node:process";
import { uploadedSummaryPolylines } from "../../projections/queries/recorded-tracks.ts";
import { decodePolyline } from "../athlete-routes/geometry.ts";
import { type CliCommand, CliUsageError, optionalString } from "../cli/command.ts";
import { DEFAULT_TILE_SOURCE, fetchTile, type TileOutcome } from "./fetch-tiles.ts";
import { squaresOf } from "./tile-squares.ts";

const fetchTiles: CliCommand = {
  name: "elevation fetch",
  summary:
    "Download the SRTM terrain tiles the uploaded activities pass through into ELEVATION_TILES_DIR (then `reprocess --all` gives non-barometric recordings the terrain's altitude and gain).",
  options: {
    dir: { type: "string", description: "the tiles folder (default: ELEVATION_TILES_DIR)", path: true },
    source: {
      type: "string",
      description: `URL template of a tile, {band} = N45, {tile} = N45E013 (default: ${DEFAULT_TILE_SOURCE})`,
    },
  },
  async run(platform, o, io) {
    const dir = optionalString(o, "dir") ?? process.env.ELEVATION_TILES_DIR;
    if (!dir) throw new CliUsageError("give --dir or set ELEVATION_TILES_DIR");
    const source = optionalString(o, "source") ?? DEFAULT_TILE_SOURCE;
    if (!/^https?:\/\//.test(source) || !source.includes("{tile}")) {
      throw new CliUsageError("--source must be an http(s) URL template holding {tile}");
    }
    const squares = new Set<string>();
    for (let after = 0;;) {
      const page = await uploadedSummaryPolylines(platform.db, after, 500);
      if (page.length === 0) break;
      for (const row of page) {
        try {
          squaresOf(decodePolyline(row.polyline), squares);
        } catch { /* a polyline that does not decode names no square */ }
      }
      after = page[page.length - 1].id;
    }
    const outcomes: TileOutcome[] = [];
    for (const name of [...squares].sort()) {
      const outcome = await fetchTile(dir, name, source);
      outcomes.push(outcome);
      if (io.interactive) io.progress(`\relevation fetch: ${outcomes.length}/${squares.size}`);
    }
    if (io.interactive && squares.size) io.progress("\n");
    const count = (kind: TileOutcome["outcome"]) => outcomes.filter((x) => x.outcome === kind).length;
    return {
      dir,
      tiles: squares.size,
      fetched: count("fetched"),
      present: count("present"),
      none: count("none"),
      failed: count("failed"),
      outcomes,
    };
  },
  format: (r) => {
    const x = r as {
      dir: string;
      tiles: number;
      fetched: number;
      present: number;
      none: number;
      failed: number;
      outcomes: TileOutcome[];
    };
    const lines = [
      `elevation fetch: ${x.tiles} tiles under the activities; ${x.fetched} fetched, ${x.present} already in ${x.dir}, ${x.none} not at the source (open sea), ${x.failed} failed`,
    ];
    for (const o of x.outcomes) if (o.outcome === "failed") lines.push(`  ${o.tile}: ${o.reason}`);
    if (x.fetched > 0) {
      lines.push("Next: npm run cli -- reprocess --all (the recordings' altitude and gain from the tiles)");
    }
    return lines.join("\n");
  },
};

/** Terrain tiles for elevation (docs/numbers.md, "Terrain model"). */
export const elevationCommands: CliCommand[] = [fetchTiles];

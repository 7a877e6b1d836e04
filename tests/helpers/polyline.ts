import polylineModule from "@mapbox/polyline";

/**
 * @mapbox/polyline with its real signatures: it ships no types, and the ones inferred from its JSDoc
 * make `precision` required (it is optional and defaults to 5).
 */
export const polyline: {
  decode(encoded: string, precision?: number): [number, number][];
  encode(points: [number, number][], precision?: number): string;
} = polylineModule;

import type { ActivityStreams } from "../../shared/streams.ts";

/**
 * Streams packed as typed arrays for the trip from a derive worker to the event loop: a typed
 * array is copied as one block, where structured-cloning a million small [lat, lng] arrays took
 * seconds on the receiving (event loop) side. null travels as NaN (no stream value is ever NaN:
 * JSON would store it as null anyway); `moving` as 0/1.
 */
export type PackedStreams = Record<string, Float64Array | Uint8Array>;

export function packStreams(streams: ActivityStreams): PackedStreams {
  const packed: PackedStreams = {};
  for (const [key, values] of Object.entries(streams) as [string, unknown[]][]) {
    if (!Array.isArray(values)) continue;
    if (key === "moving") {
      const out = new Uint8Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = values[i] ? 1 : 0;
      packed[key] = out;
    } else if (key === "latlng") {
      const out = new Float64Array(values.length * 2);
      for (let i = 0; i < values.length; i++) {
        const p = values[i] as [number, number] | null;
        out[2 * i] = p ? p[0] : NaN;
        out[2 * i + 1] = p ? p[1] : NaN;
      }
      packed[key] = out;
    } else {
      const out = new Float64Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = typeof values[i] === "number" ? values[i] as number : NaN;
      packed[key] = out;
    }
  }
  return packed;
}

export function unpackStreams(packed: PackedStreams): ActivityStreams {
  const streams: Record<string, unknown[]> = {};
  for (const key of Object.keys(packed)) streams[key] = unpackStream(key, packed[key]);
  return streams as unknown as ActivityStreams;
}

/** Streams whose arrays are unpacked on first read, each key on its own. */
export function lazyStreams(packed: PackedStreams): ActivityStreams {
  const streams: Record<string, unknown[]> = {};
  for (const key of Object.keys(packed)) {
    let value: unknown[] | undefined;
    Object.defineProperty(streams, key, {
      enumerable: true,
      configurable: true,
      get: () => (value ??= unpackStream(key, packed[key])),
    });
  }
  return streams as unknown as ActivityStreams;
}

function unpackStream(key: string, data: Float64Array | Uint8Array): unknown[] {
  {
    if (key === "moving") {
      const out = new Array<boolean>(data.length);
      for (let i = 0; i < data.length; i++) out[i] = data[i] === 1;
      return out;
    } else if (key === "latlng") {
      const n = data.length / 2;
      const out = new Array<[number, number] | null>(n);
      for (let i = 0; i < n; i++) out[i] = Number.isNaN(data[2 * i]) ? null : [data[2 * i], data[2 * i + 1]];
      return out;
    } else {
      const out = new Array<number | null>(data.length);
      for (let i = 0; i < data.length; i++) out[i] = Number.isNaN(data[i]) ? null : data[i];
      return out;
    }
  }
}

/** The typed arrays' buffers, to transfer rather than copy. */
export function packedBuffers(packed: PackedStreams): ArrayBuffer[] {
  return Object.values(packed).map((a) => a.buffer as ArrayBuffer);
}

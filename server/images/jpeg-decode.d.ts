/** Types of jpeg-decode.js (the JPEG decoder of jpeg-js, changed to need less memory). */
export interface DecodeOptions {
  colorTransform?: boolean;
  useTArray?: boolean;
  formatAsRGBA?: boolean;
  tolerantDecoding?: boolean;
  maxResolutionInMP?: number;
  maxMemoryUsageInMB?: number;
}

export function decode(
  jpegData: Uint8Array,
  options?: DecodeOptions,
): { width: number; height: number; data: Uint8Array };

/** The four upload status strings, verbatim from the spec. */
export const UPLOAD_STATUS = {
  processing: "Your activity is still being processed.",
  deleted: "The created activity has been deleted.",
  error: "There was an error processing your activity.",
  ready: "Your activity is ready.",
} as const;

export type UploadStatusText = (typeof UPLOAD_STATUS)[keyof typeof UPLOAD_STATUS];

/** The upload status body as GET /v3/uploads/:id returns it. */
export interface UploadStatusBody {
  id: number;
  id_str: string;
  external_id: string | null;
  activity_id: number | null;
  status: UploadStatusText;
  error: string | null;
}

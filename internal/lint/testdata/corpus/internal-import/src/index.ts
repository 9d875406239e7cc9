import { streamOpen } from "better-supabase/streams";
import { appendChunks } from "better-supabase/dist/streams/internal.js";

export const api = { streamOpen, appendChunks };

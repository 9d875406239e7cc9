// Type-level checks of a generated adapter against the stand-in for
// better-supabase's declarations (testdata/better-supabase): the tests copy
// this file into an adapter's test folder and run tsc. Every line fails to
// compile when the adapter's copy of an interface drifts from upstream's.
import type * as Upstream from "better-supabase";
import type * as UpstreamTesting from "better-supabase/testing";
import { compileGraph, createBuilderStarter, type WorkflowGraph } from "../src/builder.js";
import { MemoryCredentialProvider } from "../src/memory-credentials.js";
import { MemoryStreamStore } from "../src/memory-stream-store.js";
import { AsyncResult, dbError, err, ok } from "../src/result.js";
import type * as Adapter from "../src/types.js";
import type { Kits } from "./kits.test.js";

// Same is true when A and B are assignable to each other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The adapter's implementations fit where upstream asks for its interfaces.
export const store: Upstream.StreamStore = new MemoryStreamStore();
export const provider: Upstream.CredentialProvider = new MemoryCredentialProvider();
export const compiler: Upstream.GraphCompiler = compileGraph;
export const starter: Upstream.BuilderStarter = createBuilderStarter(async () => ({ externalId: "run-1" }));

// The adapter's own declarations are upstream's, both ways.
export const sameStreamStore: Same<Adapter.StreamStore, Upstream.StreamStore> = true;
export const sameStreamOpenOptions: Same<Adapter.StreamOpenOptions, Upstream.StreamOpenOptions> = true;
export const sameCredentialProvider: Same<Adapter.CredentialProvider, Upstream.CredentialProvider> = true;
export const sameDbError: Same<Adapter.DbError, Upstream.DbError> = true;
export const sameResult: Same<Adapter.Result<{ n: number }>, Upstream.Result<{ n: number }>> = true;
export const sameAsyncResult: Same<AsyncResult<string[]>, Upstream.AsyncResult<string[]>> = true;
export const sameAiMessage: Same<Adapter.AiMessage, Upstream.AiMessage> = true;
export const sameWorkflowGraph: Same<WorkflowGraph, Upstream.WorkflowGraph> = true;

// The runtime helpers take and give what upstream's do.
export const asyncResultClass: typeof Upstream.AsyncResult = AsyncResult;
export const okFn: typeof Upstream.ok = ok;
export const errFn: typeof Upstream.err = err;
export const raised: Upstream.DbErrorOf<"raised"> = dbError("raised", "a gap", { hint: "STREAM_GAP" });

// A real AiChat fits the chat flow's ChatsApi, and each call ChatsApi
// declares is upstream's; path's answer only one way, as the adapter's
// AiStoredMessage leaves out createdAt (a Temporal.Instant it never reads).
type Chat = Upstream.AiChat;
type Api = Adapter.ChatsApi;
declare const chat: Chat;
export const chats: Api = chat;
export const sameAppendUser: Same<Api["messages"]["appendUser"], Chat["messages"]["appendUser"]> = true;
export const sameSaveAssistant: Same<Api["messages"]["saveAssistant"], Chat["messages"]["saveAssistant"]> = true;
export const samePathParameters: Same<Parameters<Api["messages"]["path"]>, Parameters<Chat["messages"]["path"]>> = true;
export const sameClaim: Same<Api["runs"]["claim"], Chat["runs"]["claim"]> = true;
export const sameRelease: Same<Api["runs"]["release"], Chat["runs"]["release"]> = true;

// The kits test declares the kits with upstream's signatures: upstream's
// module fits its Kits, so the test calls each kit as upstream declares it.
// testChatState takes the Chat SDK's types, which the stand-in leaves open.
declare const testing: typeof UpstreamTesting;
export const kits: Omit<Kits, "testChatState"> = testing;

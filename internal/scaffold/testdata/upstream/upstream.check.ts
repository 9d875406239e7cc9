// Type-level checks of a generated adapter against the stand-in for
// better-supabase's declarations (testdata/better-supabase): the tests copy
// this file into an adapter's test folder and run tsc. Every line fails to
// compile when the adapter's copy of an interface drifts from upstream's.
import type * as Upstream from "better-supabase";
import type * as UpstreamTesting from "better-supabase/testing";
import { compileGraph, createBuilderStarter, type WorkflowGraph } from "../src/builder.js";
import { EngineAdapter } from "../src/engine.js";
import { MemoryAssistant, createAiTaskRunner, type AiTaskRunner } from "../src/memory-ai-task-runner.js";
import { MemoryCredentialProvider } from "../src/memory-credentials.js";
import { MemoryEmbedder, type Embedder } from "../src/memory-embedder.js";
import { MemoryEngine } from "../src/memory-engine.js";
import { MemoryRunRegistry } from "../src/memory-run-registry.js";
import { MemoryStreamStore } from "../src/memory-stream-store.js";
import { AsyncResult, dbError, err, ok } from "../src/result.js";
import type * as Adapter from "../src/types.js";
import { createStarter } from "../src/workflows.js";
import type { Kits } from "./kits.test.js";

// Same is true when A and B are assignable to each other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The adapter's implementations fit where upstream asks for its interfaces.
export const store: Upstream.StreamStore = new MemoryStreamStore();
export const provider: Upstream.CredentialProvider = new MemoryCredentialProvider();
export const compiler: Upstream.GraphCompiler = compileGraph;
export const starter: Upstream.BuilderStarter = createBuilderStarter(async () => "run-1");
export const embedder: Upstream.Embedder = new MemoryEmbedder();
export const runner: Upstream.AiTaskRunner = createAiTaskRunner(new MemoryAssistant().send);

// The adapter's own declarations are upstream's, both ways.
export const sameStreamStore: Same<Adapter.StreamStore, Upstream.StreamStore> = true;
export const sameStreamOpenOptions: Same<Adapter.StreamOpenOptions, Upstream.StreamOpenOptions> = true;
export const sameCredentialProvider: Same<Adapter.CredentialProvider, Upstream.CredentialProvider> = true;
export const sameDbError: Same<Adapter.DbError, Upstream.DbError> = true;
export const sameResult: Same<Adapter.Result<{ n: number }>, Upstream.Result<{ n: number }>> = true;
export const sameAsyncResult: Same<AsyncResult<string[]>, Upstream.AsyncResult<string[]>> = true;
export const sameAiMessage: Same<Adapter.AiMessage, Upstream.AiMessage> = true;
export const sameWorkflowGraph: Same<WorkflowGraph, Upstream.WorkflowGraph> = true;
export const sameEmbedder: Same<Embedder, Upstream.Embedder> = true;
// The runner reads some of the fields upstream passes, typed as upstream types them.
export const runnerApiVersion: Same<AiTaskRunner["apiVersion"], Upstream.AiTaskRunner["apiVersion"]> = true;

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

// The workflows block. The adapter's starter is a WorkflowStarter and goes
// where the ticks take one, over upstream's own runs client or the memory
// registry; the engine adapter records into upstream's client, its times
// Temporal.Instants. With Time a Temporal.Instant, the adapter's run types
// and the calls of its runs client are upstream's, both ways and field for
// field; the memory registry is that client with RFC 3339 times, and its
// purge and requestCancel take what upstream's do.
declare const workflows: Upstream.Workflows;
declare const instant: (rfc3339: string) => Temporal.Instant;
type Runs = Upstream.Workflows["runs"];
type AdapterRuns = Adapter.WorkflowRuns<Temporal.Instant>;
export const workflowStarter: Upstream.WorkflowStarter = createStarter(new MemoryEngine(), workflows.runs);
export const tick: Upstream.WorkflowTickOptions = { start: createStarter(new MemoryEngine(), new MemoryRunRegistry()) };
export const engineAdapter: EngineAdapter<Temporal.Instant> = new EngineAdapter(new MemoryEngine(), workflows.runs, instant);
export const memoryRuns: Adapter.WorkflowRuns<string> = new MemoryRunRegistry();
export const sameWorkflowStartCall: Same<Adapter.WorkflowStartCall, Upstream.WorkflowStartCall> = true;
export const sameWorkflowStarter: Same<Adapter.WorkflowStarter, Upstream.WorkflowStarter> = true;
export const sameWorkflowRun: Same<Adapter.WorkflowRun<Temporal.Instant>, Upstream.WorkflowRun> = true;
export const sameWorkflowRunRecord: Same<Adapter.WorkflowRunRecord<Temporal.Instant>, Upstream.WorkflowRunRecord> = true;
// Optional fields compare equal whether they are declared or not: compare the names too.
export const sameWorkflowRunRecordFields: Same<keyof Adapter.WorkflowRunRecord<Temporal.Instant>, keyof Upstream.WorkflowRunRecord> = true;
export const sameRunsRecord: Same<AdapterRuns["record"], Runs["record"]> = true;
export const sameRunsGet: Same<AdapterRuns["get"], Runs["get"]> = true;
export const samePurge: Same<MemoryRunRegistry["purge"], Runs["purge"]> = true;
export const sameRequestCancelParameters: Same<Parameters<MemoryRunRegistry["requestCancel"]>, Parameters<Runs["requestCancel"]>> = true;

// The kits test declares the kits with upstream's signatures: upstream's
// module fits its Kits, so the test calls each kit as upstream declares it.
// testChatState takes the Chat SDK's types, which the stand-in leaves open.
// With every contract, it declares every kit the stand-in has.
declare const testing: typeof UpstreamTesting;
export const kits: Omit<Kits, "testChatState"> = testing;
export const everyKit: Same<keyof Kits, Exclude<keyof typeof UpstreamTesting, "ConformanceError">> = true;

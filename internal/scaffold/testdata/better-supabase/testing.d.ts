// The stand-in's better-supabase/testing: the kits an adapter's
// implementations run, with upstream's signatures (testing/conformance.ts,
// testing/streams.ts, testing/chat-state.ts, testing/credentials.ts,
// testing/injectables.ts).
import type {
  AiTask,
  AiTaskRun,
  AiTaskRunner,
  BuilderStartCall,
  BuilderStarter,
  CredentialProvider,
  CredentialRef,
  CredentialSubject,
  Embedder,
  GraphCompiler,
  StreamStore,
  WorkflowGraph,
} from "./index.js";

export interface ConformanceCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly message?: string;
}

export interface ConformanceReport {
  readonly subject: string;
  readonly checks: readonly ConformanceCheck[];
}

export declare class ConformanceError extends Error {
  readonly report: ConformanceReport;
  constructor(report: ConformanceReport);
}

export interface TestStreamStoreOptions {
  readonly id?: () => string;
  readonly timeoutMs?: number;
}

export declare function testStreamStore(store: StreamStore, options?: TestStreamStoreOptions): Promise<ConformanceReport>;

export interface TestCredentialProviderOptions {
  readonly ref: CredentialRef;
  readonly seed: (ref: CredentialRef, subject: CredentialSubject, value: string) => Promise<void>;
  readonly userRef?: CredentialRef;
  readonly inbound?: {
    readonly ref: CredentialRef;
    readonly sign: (body: string, secret: string) => Promise<Request>;
  };
}

export declare function testCredentialProvider(provider: CredentialProvider, options: TestCredentialProviderOptions): Promise<ConformanceReport>;

// testChatState takes the Chat SDK's StateAdapter and Message (package
// "chat"), which are not better-supabase's: the stand-in does not restate
// the Chat SDK, so it takes any object as the state and a message as far as
// the kit reads it, and the type checks leave this kit out.
export interface ChatSdkMessage {
  readonly id: string;
  readonly text: string;
}

export interface TestChatStateOptions {
  readonly message: (id: string, text: string) => ChatSdkMessage;
  readonly id?: () => string;
  readonly ttlMs?: number;
}

export declare function testChatState(state: object, options: TestChatStateOptions): Promise<ConformanceReport>;

export interface TestGraphCompilerOptions {
  readonly graph: WorkflowGraph;
}

export declare function testGraphCompiler(compile: GraphCompiler, options: TestGraphCompilerOptions): Promise<ConformanceReport>;

export interface TestBuilderStarterOptions {
  readonly call: BuilderStartCall;
}

export declare function testBuilderStarter(start: BuilderStarter, options: TestBuilderStarterOptions): Promise<ConformanceReport>;

export interface TestEmbedderOptions {
  readonly values?: readonly string[];
}

export declare function testEmbedder(embedder: Embedder, options?: TestEmbedderOptions): Promise<ConformanceReport>;

export interface TestAiTaskRunnerOptions {
  readonly task: AiTask;
  readonly run: AiTaskRun;
}

export declare function testAiTaskRunner(runner: AiTaskRunner, options: TestAiTaskRunnerOptions): Promise<ConformanceReport>;

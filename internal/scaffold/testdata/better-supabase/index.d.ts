// A stand-in for better-supabase's public types, written by bsadapter from
// better-supabase's source for its tests: what an adapter implements or
// calls, signature for signature. docs/new.md ("What the generated code is
// checked against") names the files and commits. Upstream spreads these
// over several subpaths; the stand-in keeps them in one module.

declare global {
  // Upstream types times as Temporal.Instant; only the name matters here.
  namespace Temporal {
    interface Instant {
      readonly epochMilliseconds: number;
    }
  }
}

// core/errors.ts

export interface ValidationIssue {
  readonly message: string;
  readonly path?: readonly PropertyKey[];
}

export interface DbErrorKinds {
  not_found: Record<never, never>;
  unauthorized: Record<never, never>;
  forbidden: { required?: "aal1" | "aal2"; scopes?: readonly string[] };
  conflict: { constraint?: string; columns?: readonly string[] };
  foreign_key: { constraint?: string; columns?: readonly string[] };
  check: { constraint?: string };
  not_null: { column?: string };
  exclusion: { constraint?: string };
  invalid_input: Record<never, never>;
  invalid_value: { column?: string };
  raised: Record<never, never>;
  timeout: Record<never, never>;
  serialization: Record<never, never>;
  network: Record<never, never>;
  aborted: Record<never, never>;
  invalid_request: Record<never, never>;
  validation: { issues: readonly ValidationIssue[] };
  multiple_rows: Record<never, never>;
  stale: Record<never, never>;
  rate_limited: { retryAfter?: number };
  unsupported: Record<never, never>;
  unexpected: Record<never, never>;
}

export type DbErrorKind = keyof DbErrorKinds;

interface DbErrorBase<K extends DbErrorKind> {
  readonly kind: K;
  readonly message: string;
  readonly code?: string;
  readonly status: number;
  readonly details?: string;
  readonly hint?: string;
  readonly table?: string;
}

export type DbError = { [K in DbErrorKind]: DbErrorBase<K> & DbErrorKinds[K] }[DbErrorKind];

export type DbErrorOf<K extends DbErrorKind> = Extract<DbError, { kind: K }>;

type ExtraOf<K extends DbErrorKind> =
  Record<never, never> extends DbErrorKinds[K]
    ? [extra?: DbErrorKinds[K] & Partial<Omit<DbErrorBase<K>, "kind">>]
    : [extra: DbErrorKinds[K] & Partial<Omit<DbErrorBase<K>, "kind">>];

export declare function dbError<K extends DbErrorKind>(kind: K, message: string, ...extra: ExtraOf<K>): DbErrorOf<K>;

export declare class DbException extends Error {
  readonly name: "DbException";
  readonly error: DbError;
  constructor(error: DbError);
  get kind(): DbErrorKind;
}

// core/result.ts

export type Ok<T> = { readonly ok: true; readonly data: T; readonly error: null };
export type Err<E = DbError> = { readonly ok: false; readonly data: null; readonly error: E };
export type Result<T, E = DbError> = Ok<T> | Err<E>;

export declare function ok<T>(data: T): Ok<T>;
export declare function err<E = DbError>(error: E): Err<E>;
export declare function toDbError(cause: unknown): DbError;

// Upstream's class keeps its promise in an ES private field; declaration
// files show that as #private, and TypeScript then compares the class by
// name. The tests also check a copy with this line taken out.
export declare class AsyncResult<T> implements PromiseLike<Result<T>> {
  #private;
  constructor(promise: Promise<Result<T>>);
  static from<T>(run: () => Promise<Result<T>>): AsyncResult<T>;
  static ok<T>(data: T): AsyncResult<T>;
  static err<T = never>(error: DbError): AsyncResult<T>;
  then<R1 = Result<T>, R2 = never>(
    onfulfilled?: ((value: Result<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2>;
  orThrow(factory?: (error: DbError) => unknown): Promise<T>;
  unwrapOr<F>(fallback: F): Promise<T | F>;
  map<U>(fn: (data: T) => U): AsyncResult<U>;
  mapError(fn: (error: DbError) => DbError): AsyncResult<T>;
  andThen<U>(fn: (data: T) => PromiseLike<Result<U>>): AsyncResult<U>;
}

// streams/store.ts

export interface StreamOpenOptions {
  readonly owner?: string;
  readonly tenant?: string;
  readonly kind?: string;
  readonly ttl?: number | string;
}

export interface StreamAppendResult {
  readonly next: number;
  readonly cancelled: boolean;
}

export interface StreamStatus {
  readonly next: number;
  readonly closed: boolean;
  readonly cancelled: boolean;
}

export interface StreamReadOptions {
  readonly signal?: AbortSignal;
}

export interface StreamPurgeOptions {
  readonly olderThan?: number | string;
}

export interface StreamStore {
  readonly apiVersion: 1;
  readonly name: string;
  open(id: string, options?: StreamOpenOptions): AsyncResult<boolean>;
  append(id: string, fromIdx: number, chunks: readonly string[]): AsyncResult<StreamAppendResult>;
  read(id: string, fromIdx?: number, options?: StreamReadOptions): ReadableStream<string>;
  status(id: string): AsyncResult<StreamStatus | undefined>;
  isCancelled(id: string): AsyncResult<boolean>;
  close(id: string): AsyncResult<boolean>;
  cancel(id: string): AsyncResult<boolean>;
  purge(options?: StreamPurgeOptions): AsyncResult<number>;
}

// blocks/ai-chat/message.ts

type ProviderMetadata = Readonly<Record<string, unknown>>;

interface PartBase {
  readonly providerMetadata?: ProviderMetadata;
}

export interface AiTextPart extends PartBase {
  readonly type: "text";
  readonly text: string;
  readonly state?: "streaming" | "done";
}

export interface AiReasoningPart extends PartBase {
  readonly type: "reasoning";
  readonly text: string;
  readonly state?: "streaming" | "done";
}

export interface AiFilePart extends PartBase {
  readonly type: "file";
  readonly mediaType: string;
  readonly url: string;
  readonly filename?: string;
}

export interface AiToolCallPart extends PartBase {
  readonly type: "tool-call";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly providerExecuted?: boolean;
}

export interface AiToolResultPart extends PartBase {
  readonly type: "tool-result";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly output: unknown;
  readonly isError?: boolean;
}

export interface AiToolApprovalPart extends PartBase {
  readonly type: "tool-approval";
  readonly toolCallId: string;
  readonly approvalId: string;
  readonly state: "requested" | "approved" | "denied";
  readonly reason?: string;
}

export interface AiSourcePart extends PartBase {
  readonly type: "source";
  readonly sourceType: "url" | "document";
  readonly id: string;
  readonly url?: string;
  readonly title?: string;
  readonly mediaType?: string;
}

export interface AiDataPart extends PartBase {
  readonly type: "data";
  readonly name: string;
  readonly id?: string;
  readonly data: unknown;
}

export interface AiStepPart extends PartBase {
  readonly type: "step";
  readonly boundary: "start" | "finish";
  readonly stepId?: string;
}

export type AiMessagePart =
  | AiTextPart
  | AiReasoningPart
  | AiFilePart
  | AiToolCallPart
  | AiToolResultPart
  | AiToolApprovalPart
  | AiSourcePart
  | AiDataPart
  | AiStepPart;

export type AiMessageRole = "system" | "user" | "assistant" | "tool";

export interface AiMessage {
  readonly id: string;
  readonly role: AiMessageRole;
  readonly parts: readonly AiMessagePart[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

// blocks/ai-chat/ai-chat.ts: the messages and runs of AiChat (upstream's
// AiChat has more members, which only widen it).

export type AiStoredMessageStatus = "complete" | "aborted" | "error";

export interface AiStoredMessage extends AiMessage {
  readonly parentId: string | undefined;
  readonly format: string;
  readonly native: unknown;
  readonly model: string | undefined;
  readonly status: AiStoredMessageStatus;
  readonly createdAt: Temporal.Instant;
  readonly siblingCount: number;
  readonly siblingIndex: number;
}

export interface AiMessageSibling {
  readonly id: string;
  readonly role: AiMessageRole;
  readonly createdAt: Temporal.Instant;
}

export type AiUserMessageTrigger = "submit-message" | "regenerate-message";

export interface AiAppendResult {
  readonly messageId: string;
  readonly parentId: string | undefined;
  readonly created: boolean;
}

export interface AiAssistantMessageOptions {
  readonly parentId: string;
  readonly status?: AiStoredMessageStatus;
  readonly model?: string;
  readonly format?: string;
  readonly native?: unknown;
  readonly runId?: string | undefined;
}

export interface AiSaveResult {
  readonly messageId: string;
  readonly parentId: string | undefined;
  readonly created: boolean;
}

export interface AiStreamClaim {
  readonly claimed: boolean;
  readonly streamId: string | undefined;
  readonly runId: string | undefined;
}

// core/run-state.ts: FinalRunState, which AiRunStatus is.
export type AiRunStatus = "completed" | "failed" | "cancelled";

export interface AiRunRelease {
  readonly status?: AiRunStatus;
  readonly usage?: Readonly<Record<string, unknown>>;
  readonly generationId?: string;
  readonly error?: string;
  readonly costMicroUsd?: number;
}

export interface AiChat {
  readonly messages: {
    appendUser(
      chatId: string,
      message: AiMessage,
      options?: { readonly trigger?: AiUserMessageTrigger; readonly messageId?: string },
    ): AsyncResult<AiAppendResult>;
    saveAssistant(chatId: string, message: AiMessage, options: AiAssistantMessageOptions): AsyncResult<AiSaveResult>;
    path(chatId: string, options?: { readonly leafId?: string; readonly native?: boolean }): AsyncResult<readonly AiStoredMessage[]>;
    siblings(chatId: string, messageId: string): AsyncResult<readonly AiMessageSibling[]>;
    switchBranch(chatId: string, messageId: string): AsyncResult<string>;
  };
  readonly runs: {
    claim(
      chatId: string,
      streamId: string,
      options?: { readonly model?: string; readonly messageId?: string; readonly engine?: string; readonly externalRunId?: string },
    ): AsyncResult<AiStreamClaim>;
    release(chatId: string, streamId: string, options?: AiRunRelease): AsyncResult<boolean>;
    stop(chatId: string): AsyncResult<{ readonly streamId: string; readonly runId: string } | undefined>;
    setCost(generationId: string, costMicroUsd: number, usage?: Readonly<Record<string, unknown>>): AsyncResult<boolean>;
  };
}

// credentials/provider.ts

export type CredentialRef = { readonly provider: string; readonly tenant?: string } & Readonly<Record<string, unknown>>;

export declare function tenantCredentialRef<R extends CredentialRef>(tenant: string, ref: R): R & { readonly tenant: string };

export type CredentialSubject = { readonly type: "app" } | { readonly type: "user"; readonly id: string; readonly issuer?: string };

export interface GetTokenOptions {
  readonly subject: CredentialSubject;
  readonly scopes?: readonly string[];
  readonly installationId?: string;
  readonly signal?: AbortSignal;
}

export interface CredentialToken {
  readonly token: string;
  readonly expiresAt?: Temporal.Instant;
  readonly headers: Readonly<Record<string, string>>;
}

export interface CredentialCapabilities {
  readonly userSubjects: boolean;
  readonly authorization: boolean;
  readonly revoke: boolean;
  readonly inbound: boolean;
}

export interface StartAuthorizationOptions {
  readonly subject: CredentialSubject;
  readonly redirectUri: string;
  readonly scopes?: readonly string[];
  readonly state?: string;
}

export interface CompleteAuthorizationOptions {
  readonly subject: CredentialSubject;
  readonly callback: Request | URL | string;
}

export interface SetCredentialOptions {
  readonly subject?: CredentialSubject;
  readonly description?: string;
}

export interface CredentialProvider {
  readonly apiVersion: 1;
  readonly name: string;
  getToken(ref: CredentialRef, options: GetTokenOptions): AsyncResult<CredentialToken>;
  capabilities(ref: CredentialRef): CredentialCapabilities;
  startAuthorization?(ref: CredentialRef, options: StartAuthorizationOptions): AsyncResult<{ readonly url: string }>;
  completeAuthorization?(ref: CredentialRef, options: CompleteAuthorizationOptions): AsyncResult<void>;
  revoke(ref: CredentialRef, options: { readonly subject: CredentialSubject }): AsyncResult<boolean>;
  verifyInbound?(request: Request, ref: CredentialRef): AsyncResult<boolean>;
  set?(ref: CredentialRef, value: string, options?: SetCredentialOptions): AsyncResult<void>;
}

// blocks/workflow-builder/graph.ts

export type WorkflowNodeKind = "trigger" | "step" | "sleep" | "approval" | "condition";

export interface WorkflowGraphNode {
  readonly id: string;
  readonly kind: WorkflowNodeKind;
  readonly label?: string;
  readonly step?: string;
  readonly config?: Readonly<Record<string, unknown>>;
  readonly position?: { readonly x: number; readonly y: number };
}

export interface WorkflowGraphEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly branch?: "true" | "false";
}

export interface WorkflowGraph {
  readonly nodes: readonly WorkflowGraphNode[];
  readonly edges: readonly WorkflowGraphEdge[];
}

// blocks/workflow-builder/types.ts: what a compiler and a starter take.

export type WorkflowVersionStatus = "draft" | "published" | "archived";

export type WorkflowTriggerKind = "manual" | "webhook" | "schedule" | "event" | "form" | "chat";

export interface WorkflowDefinition {
  readonly id: string;
  readonly tenant: string | undefined;
  readonly slug: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly createdBy: string | undefined;
  readonly createdAt: Temporal.Instant;
  readonly updatedAt: Temporal.Instant;
  readonly published?: number | undefined;
  readonly draft?: boolean;
}

export interface WorkflowVersion {
  readonly id: string;
  readonly definition: string;
  readonly version: number;
  readonly status: WorkflowVersionStatus;
  readonly createdBy: string | undefined;
  readonly createdAt: Temporal.Instant;
  readonly publishedAt: Temporal.Instant | undefined;
  readonly graph?: WorkflowGraph;
  readonly compiled?: unknown;
}

export interface WorkflowTrigger {
  readonly id: string;
  readonly definition: string;
  readonly kind: WorkflowTriggerKind;
  readonly config: Readonly<Record<string, unknown>>;
  readonly enabled: boolean;
  readonly createdAt: Temporal.Instant;
  readonly updatedAt: Temporal.Instant;
}

export interface BuilderStartCall {
  readonly definition: WorkflowDefinition;
  readonly version: WorkflowVersion;
  readonly input: unknown;
  readonly tenant: string | undefined;
  readonly actor: string | undefined;
  readonly idempotencyKey: string;
  readonly trigger?: WorkflowTrigger;
}

export type BuilderStarter = ((call: BuilderStartCall) => Promise<string>) & { readonly apiVersion?: 1 };

export type GraphCompiler = ((graph: WorkflowGraph) => unknown) & { readonly apiVersion?: 1 };

// blocks/workflows/workflows.ts: the starter the ticks call and the runs
// client (upstream's Workflows also has schedules, semaphores and
// admission, which only widen it).

export type WorkflowRunStatus = "queued" | "running" | "waiting" | "completed" | "failed" | "cancelled";

export interface WorkflowRun {
  readonly id: string;
  readonly engine: string;
  readonly externalId: string;
  readonly definition: string;
  readonly tenant: string | undefined;
  readonly actor: string | undefined;
  readonly status: WorkflowRunStatus;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly error: string | undefined;
  readonly createdAt: Temporal.Instant;
  readonly updatedAt: Temporal.Instant;
  readonly startedAt: Temporal.Instant | undefined;
  readonly completedAt: Temporal.Instant | undefined;
  readonly cancelRequestedAt: Temporal.Instant | undefined;
}

export interface WorkflowRunRecord {
  readonly engine: string;
  readonly externalId: string;
  readonly definition: string;
  readonly status: WorkflowRunStatus;
  readonly tenant?: string;
  readonly actor?: string;
  readonly attributes?: Readonly<Record<string, unknown>>;
  readonly error?: string;
  readonly startedAt?: Temporal.Instant;
  readonly completedAt?: Temporal.Instant;
}

// Upstream's query also takes its shared cursor page options; the adapter
// does not list runs.
export interface WorkflowRunsQuery {
  readonly tenant?: string;
  readonly definition?: string;
  readonly status?: WorkflowRunStatus;
  readonly limit?: number;
  readonly cursor?: Temporal.Instant;
}

export interface WorkflowStartCall {
  readonly workflow: string;
  readonly input: unknown;
  readonly tenant: string | undefined;
  readonly actor: string | undefined;
  readonly idempotencyKey: string;
}

export type WorkflowStarter = (call: WorkflowStartCall) => Promise<string>;

export interface WorkflowTickOptions {
  readonly start: WorkflowStarter;
  readonly lease?: number;
  readonly batch?: number;
}

export interface Workflows {
  readonly runs: {
    list(query?: WorkflowRunsQuery): AsyncResult<readonly WorkflowRun[]>;
    get(run: string): AsyncResult<WorkflowRun | undefined>;
    requestCancel(run: string): AsyncResult<WorkflowRun | undefined>;
    record(run: WorkflowRunRecord): AsyncResult<string>;
    purge(options?: { readonly olderThan?: number; readonly batch?: number }): AsyncResult<number>;
  };
}

// blocks/knowledge/knowledge.ts and blocks/ai-tasks/ai-tasks.ts (commit
// 19b97f9cec5e; docs/upstream-interfaces.md, "Embedder and AiTaskRunner")

export interface Embedder {
  readonly apiVersion?: 1;
  readonly model: string;
  embed(values: readonly string[], options?: { signal?: AbortSignal }): Promise<readonly (readonly number[])[]>;
}

export type AiTaskRunStatus = "queued" | "running" | "completed" | "failed";

export interface AiTaskRun {
  readonly id: string;
  readonly taskId: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly status: AiTaskRunStatus;
  readonly scheduledFor: Temporal.Instant;
  readonly chatId?: string;
  readonly error?: string;
  readonly startedAt?: Temporal.Instant;
  readonly finishedAt?: Temporal.Instant;
  readonly createdAt: Temporal.Instant;
}

export interface AiTask {
  readonly id: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly chatId: string | undefined;
  readonly agentId: string | undefined;
  readonly title: string;
  readonly prompt: string;
  readonly cron: string;
  readonly timezone: string;
  readonly enabled: boolean;
  readonly nextRunAt?: Temporal.Instant;
  readonly lastRunAt?: Temporal.Instant;
  readonly lastRun?: AiTaskRun;
  readonly createdAt: Temporal.Instant;
  readonly updatedAt: Temporal.Instant;
}

export type AiTaskRunner = ((task: AiTask, run: AiTaskRun, signal: AbortSignal) => Promise<{ chatId?: string } | void>) & {
  readonly apiVersion?: 1;
};

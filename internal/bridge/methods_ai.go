package bridge

// The capabilities and methods of the interfaces the AI blocks take from
// an adapter (docs/bridge-protocol.md, "Embedders" and "AI task
// runners"), and the signal methods both share.

// GroupEmbedder is better-supabase's Embedder, which the knowledge and
// memory blocks embed with.
const GroupEmbedder = "embedder"

// The methods of the embedder group.
const (
	// MethodEmbedderIdentity answers {"apiVersion", "model"}.
	MethodEmbedderIdentity = "embedder.identity"
	// MethodEmbedderEmbed embeds {"values", "signal"?, "hold"?} and
	// answers {"vectors"}; a rejection is an error whose data names the
	// thrown error: {"name": "AbortError"}.
	MethodEmbedderEmbed = "embedder.embed"
)

// GroupAiTaskRunner is better-supabase's AiTaskRunner, which the ai-tasks
// block runs each occurrence of a scheduled task with.
const GroupAiTaskRunner = "aiTaskRunner"

// The methods of the aiTaskRunner group.
const (
	// MethodRunnerIdentity answers {"apiVersion"}.
	MethodRunnerIdentity = "aiTaskRunner.identity"
	// MethodRunnerRun runs {"task", "run", "signal"?, "hold"?, "fail"?}
	// and answers {"result"?, "sent", "taskAfter", "runAfter"}; a rejection
	// is an error whose data is {"name", "sent"}.
	MethodRunnerRun = "aiTaskRunner.run"
)

// The signal methods, which a bridge declaring embedder or aiTaskRunner
// answers: each names a signal by the id the calls above pass as
// "signal".
const (
	// MethodSignalAbort aborts {"signal"} (a signal not used yet is made
	// aborted) and answers null.
	MethodSignalAbort = "signal.abort"
	// MethodSignalHeld answers null once a call made with "hold" on
	// {"signal"} has reached the part the bridge holds.
	MethodSignalHeld = "signal.held"
	// MethodSignalRelease lets the held parts of the calls on {"signal"}
	// answer, and answers null.
	MethodSignalRelease = "signal.release"
)

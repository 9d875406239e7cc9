package bridge

// The capabilities and methods of the suites beyond the StreamStore and the
// run registry (docs/bridge-protocol.md, "More interfaces"): a bridge
// declares a group true in its initialize answer and answers its methods.
const (
	// GroupChatState is the Chat SDK StateAdapter.
	GroupChatState = "chatState"
	// GroupCredentials is a CredentialProvider and the kit's hooks.
	GroupCredentials = "credentials"
	// CapClock is the stores' injected clock, which clock.advance moves
	// forward so that TTLs are checked without waiting. Its value is true
	// (every store of the bridge reads the clock) or a list of the groups
	// whose stores do (["streamStore", "chatState"]): a store that reads
	// its own time must not be listed, or a move it never sees would let
	// its TTL cases pass unchecked.
	CapClock = "clock"
	// CapChatQueueExpiry is how the state adapter treats queue entries
	// past their expiresAt: QueueExpirySkip or QueueExpiryCaller (the
	// default, when it is absent).
	CapChatQueueExpiry = "chatState.queueExpiry"
)

// The values of CapChatQueueExpiry.
const (
	// QueueExpirySkip is the chat-sdk-state block's model: an expired
	// entry neither counts nor dequeues, and one that arrives expired
	// takes no place in the queue.
	QueueExpirySkip = "skip"
	// QueueExpiryCaller is the Chat SDK's StateAdapter as its interface
	// reads: stale entries may still count and dequeue, and the caller
	// that dequeues them drops them.
	QueueExpiryCaller = "caller"
)

// The methods of the clock capability.
const (
	// MethodClockAdvance moves the bridge's clock forward by
	// {"seconds": <number>} (zero reads it) and answers {"now": "<RFC 3339>"}.
	MethodClockAdvance = "clock.advance"
)

// The methods of the chatState group, one per StateAdapter method.
const (
	MethodChatSubscribe        = "chatState.subscribe"
	MethodChatUnsubscribe      = "chatState.unsubscribe"
	MethodChatIsSubscribed     = "chatState.isSubscribed"
	MethodChatAcquireLock      = "chatState.acquireLock"
	MethodChatReleaseLock      = "chatState.releaseLock"
	MethodChatExtendLock       = "chatState.extendLock"
	MethodChatForceReleaseLock = "chatState.forceReleaseLock"
	MethodChatGet              = "chatState.get"
	MethodChatSet              = "chatState.set"
	MethodChatSetIfNotExists   = "chatState.setIfNotExists"
	MethodChatDelete           = "chatState.delete"
	MethodChatAppendToList     = "chatState.appendToList"
	MethodChatGetList          = "chatState.getList"
	MethodChatEnqueue          = "chatState.enqueue"
	MethodChatDequeue          = "chatState.dequeue"
	MethodChatQueueDepth       = "chatState.queueDepth"
)

// The methods of the credentials group: the CredentialProvider's, and the
// hooks the suite needs beside them (fixture, seed, sign, atRest).
const (
	MethodCredIdentity      = "credentials.identity"
	MethodCredFixture       = "credentials.fixture"
	MethodCredSeed          = "credentials.seed"
	MethodCredGetToken      = "credentials.getToken"
	MethodCredCapabilities  = "credentials.capabilities"
	MethodCredRevoke        = "credentials.revoke"
	MethodCredSign          = "credentials.sign"
	MethodCredVerifyInbound = "credentials.verifyInbound"
	MethodCredAtRest        = "credentials.atRest"
)

// GroupGraphCompiler is a workflow builder graph compiler.
const GroupGraphCompiler = "graphCompiler"

// The methods of the graphCompiler group.
const (
	// MethodGraphIdentity answers {"apiVersion", "name"}.
	MethodGraphIdentity = "graphCompiler.identity"
	// MethodGraphCompile compiles {"graph"} and answers {"compiled",
	// "lossless", "graphAfter"}: the value, whether it deep-equals its
	// own JSON round trip, and the graph object after the call.
	MethodGraphCompile = "graphCompiler.compile"
)

// GroupWorkflowEngine is a workflow engine adapter; it records into the
// bridge's runRegistry group, which its suite reads.
const GroupWorkflowEngine = "workflowEngine"

// The methods of the workflowEngine group.
const (
	MethodEngineIdentity        = "workflowEngine.identity"        // {} -> {apiVersion, name, engine}
	MethodEngineStatuses        = "workflowEngine.statuses"        // {} -> {statuses: [{name, terminal}]}
	MethodEngineMapStatus       = "workflowEngine.mapStatus"       // {status} -> {status}
	MethodEngineStart           = "workflowEngine.start"           // {request} -> {runId}
	MethodEngineEmit            = "workflowEngine.emit"            // {runId, event} -> null
	MethodEngineSync            = "workflowEngine.sync"            // {runId} -> null
	MethodEngineCancelRequested = "workflowEngine.engineCancelled" // {runId} -> {cancelled}
)

// GroupBuilderRuntime is a workflow builder runtime.
const GroupBuilderRuntime = "builderRuntime"

// The methods of the builderRuntime group.
const (
	// MethodBuilderIdentity answers {"apiVersion", "name"}.
	MethodBuilderIdentity = "builderRuntime.identity"
	// MethodBuilderExecute runs executeGraph on {"request"} with the
	// adapter's runtime and answers {"outputs", "trace"}.
	MethodBuilderExecute = "builderRuntime.execute"
)

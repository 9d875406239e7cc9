package bridge

// The methods of the bridge protocol (docs/bridge-protocol.md), named once
// here so that the client, the stores and fixture checks that call them
// and the test bridges that answer them cannot spell one differently.
const (
	// MethodInitialize is the handshake: the first request, answered with
	// the protocol version, the adapter and its capabilities.
	MethodInitialize = "initialize"
	// MethodShutdown asks the bridge to exit; it is the last request.
	MethodShutdown = "shutdown"

	// MethodFromSDK converts an SDK message to its canonical form.
	MethodFromSDK = "converter.fromSdk"
	// MethodToSDK converts a canonical message back to the SDK's form.
	MethodToSDK = "converter.toSdk"
	// MethodFromSDKHistory converts a conversation, a list of SDK
	// messages, to canonical messages at once, so that a message is
	// converted with the ones before it in view (a tool result with its
	// call). Optional: a bridge declares capabilities.converterHistory.
	MethodFromSDKHistory = "converter.fromSdkHistory"
	// MethodToSDKHistory converts a list of canonical messages back.
	MethodToSDKHistory = "converter.toSdkHistory"

	MethodStreamOpen        = "streamStore.open"        // StreamStore.open
	MethodStreamAppend      = "streamStore.append"      // StreamStore.append
	MethodStreamRead        = "streamStore.read"        // StreamStore.read, the live read
	MethodStreamStatus      = "streamStore.status"      // StreamStore.status
	MethodStreamIsCancelled = "streamStore.isCancelled" // StreamStore.isCancelled
	MethodStreamClose       = "streamStore.close"       // StreamStore.close
	MethodStreamCancel      = "streamStore.cancel"      // StreamStore.cancel
	MethodStreamPurge       = "streamStore.purge"       // StreamStore.purge
	// MethodStreamCallers is the optional method by which a StreamStore
	// bridge says it takes the caller's identity: requests may then carry
	// "caller": {"role": "authenticated", "sub": "<uuid>"} or
	// {"role": "anon"}, and the bridge answers as row-level security would
	// for that caller. A bridge without it is not checked for owner
	// visibility.
	MethodStreamCallers = "streamStore.callers"

	// MethodStreamIdentity (version 2, capability streamStore.identity)
	// answers the store's apiVersion and name.
	MethodStreamIdentity = "streamStore.identity"
	// MethodStreamReadPage (version 2, capability streamStore.readPage) is
	// the bounded, non-blocking read: at most max chunks from fromIdx.
	MethodStreamReadPage = "streamStore.readPage"
	// MethodStreamReadLive (version 2, capability streamStore.liveRead)
	// starts a live read under a handle bsadapter chooses; the chunks come
	// as NotifyReadChunks notifications and the end as one NotifyReadEnd.
	MethodStreamReadLive = "streamStore.readLive"
	// MethodStreamAbortRead (version 2, capability streamStore.liveRead)
	// stops a live read; the bridge sends its NotifyReadEnd first.
	MethodStreamAbortRead = "streamStore.abortRead"

	MethodRunRecord        = "runRegistry.record"        // RunRegistry.record
	MethodRunGet           = "runRegistry.get"           // RunRegistry.get
	MethodRunList          = "runRegistry.list"          // RunRegistry.list
	MethodRunRequestCancel = "runRegistry.requestCancel" // RunRegistry.requestCancel
	MethodRunPurge         = "runRegistry.purge"         // RunRegistry.purge
	// MethodRunGrant (version 2, capability runRegistry.callers) gives a
	// user a permission in a tenant, {"user", "tenant", "permission"}, as
	// the access module's grant would. A store that cannot grant (its
	// permissions live elsewhere) answers it with method not found, and
	// the cases that need a grant are skipped.
	MethodRunGrant = "runRegistry.grant"
)

// The capability groups a bridge declares in its initialize answer; a
// method's group is the part of its name before the dot.
const (
	GroupConverter   = "converter"
	GroupStreamStore = "streamStore"
	GroupRunRegistry = "runRegistry"
)

// The notifications a version 2 bridge sends: a live read's chunks and its
// end, for the handle of its streamStore.readLive request.
const (
	NotifyReadChunks = "streamStore.readChunks"
	NotifyReadEnd    = "streamStore.readEnd"
)

// The optional capabilities of protocol version 2, declared true beside the
// method groups in the initialize answer.
const (
	CapStreamIdentity = "streamStore.identity"      // streamStore.identity
	CapStreamReadPage = "streamStore.readPage"      // streamStore.readPage
	CapStreamLiveRead = "streamStore.liveRead"      // readLive, abortRead and their notifications
	CapStreamStatus   = "streamStore.statusDetails" // status also carries kind and expiresAt
	CapStreamCallers  = "streamStore.callers"       // requests may carry a caller
	// CapRunCallers: runRegistry.get, .list and .requestCancel may carry a
	// caller, answered as the workflows block's rules would for it, and
	// runRegistry.grant gives members their permissions.
	CapRunCallers = "runRegistry.callers"
	// CapStreamExpiry is the one capability whose value is a string, not
	// true: how the store's streams expire, ExpiryPurge (the default, when
	// it is absent) or ExpirySelf.
	CapStreamExpiry = "streamStore.expiry"
)

// The values of CapStreamExpiry.
const (
	// ExpiryPurge is the streams block's model: an expired stream stays,
	// unchanged, until a purge removes it and counts it.
	ExpiryPurge = "purge"
	// ExpirySelf is a store that expires streams by itself (Redis keys
	// with a TTL): an expired stream is gone without a purge, and its id
	// opens as a new stream.
	ExpirySelf = "self"
)

package bridge

// GroupWorld is the Workflow SDK's World (docs/bridge-protocol.md,
// "Workflow SDK worlds"): its storage, streamer and queue, one method
// each, and the hooks its suite needs beside them (the deliveries its
// queue handlers were handed, and a fresh World to close).
const GroupWorld = "world"

// The methods of the world group.
const (
	MethodWorldIdentity          = "world.identity"                  // {} -> {specVersion, deploymentId}
	MethodWorldCreateEvent       = "world.createEvent"               // {runId|null, event, resolveData?} -> EventResult
	MethodWorldGetEvent          = "world.getEvent"                  // {runId, eventId, resolveData?} -> {event}
	MethodWorldListEvents        = "world.listEvents"                // {runId, pagination?, resolveData?} -> page
	MethodWorldListByCorrelation = "world.listEventsByCorrelationId" // {correlationId, pagination?, resolveData?} -> page
	MethodWorldGetRun            = "world.getRun"                    // {runId, resolveData?} -> {run}
	MethodWorldListRuns          = "world.listRuns"                  // {workflowName?, status?, pagination?, resolveData?} -> page
	MethodWorldGetStep           = "world.getStep"                   // {runId, stepId, resolveData?} -> {step}
	MethodWorldListSteps         = "world.listSteps"                 // {runId, pagination?, resolveData?} -> page
	MethodWorldGetHook           = "world.getHook"                   // {hookId} -> {hook}
	MethodWorldGetHookByToken    = "world.getHookByToken"            // {token} -> {hook}
	MethodWorldListHooks         = "world.listHooks"                 // {runId, pagination?} -> page
	MethodWorldStreamWrite       = "world.streamWrite"               // {runId, name, chunks, multi?} -> null
	MethodWorldStreamClose       = "world.streamClose"               // {runId, name} -> null
	MethodWorldStreamRead        = "world.streamRead"                // {runId, name, startIndex?, timeoutMs} -> {chunks, ended}
	MethodWorldStreamList        = "world.streamList"                // {runId} -> {names}
	MethodWorldStreamChunks      = "world.streamChunks"              // {runId, name, limit?, cursor?} -> chunk page
	MethodWorldStreamInfo        = "world.streamInfo"                // {runId, name} -> {tailIndex, done}
	MethodWorldQueue             = "world.queue"                     // {queueName, message, options?} -> {messageId}
	MethodWorldDeliveries        = "world.deliveries"                // {queueName, min, timeoutMs} -> {deliveries}
	MethodWorldCloseFresh        = "world.closeFresh"                // {} -> null
)

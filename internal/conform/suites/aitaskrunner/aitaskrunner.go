// Package aitaskrunner is the ai-task-runner suite: better-supabase's
// AiTaskRunner, the function the ai-tasks block runs each occurrence of a
// scheduled prompt with, as the task's user, driven through a harness that
// controls its AbortSignal and sees what it asks its assistant.
package aitaskrunner

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the ai-task-runner suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "ai-task-runner",
	Contract:    "ai-task-runner",
	BridgeGroup: bridge.GroupAiTaskRunner,
	Intro: "An `AiTaskRunner` (better-supabase's, from the ai-tasks block: `((task: AiTask, run: AiTaskRun, signal: AbortSignal) => " +
		"Promise<{chatId?: string} | void>) & {apiVersion?: 1}`), which runs one occurrence of a scheduled task as the task's user: " +
		"it sends the task's prompt to the assistant and returns the chat it wrote to; a throw fails the run. " +
		"Upstream's kit is `testAiTaskRunner(runner, {task, run})` (`src/testing/injectables.ts`); its checks map onto the cases: " +
		"\"has apiVersion 1\" is `ai-task-runner/identity`, \"resolves with nothing or a chat id\" is `ai-task-runner/result-shape`, and " +
		"\"stops on an aborted signal\" is `ai-task-runner/abort-before`, which asks for more than a rejection: an error named `AbortError` " +
		"and no prompt sent. bsadapter makes the task and the run itself (fresh ids, the fields the block passes, instants as RFC 3339 text) " +
		"and adds what the interface's own words promise: the prompt goes out once, as the task's user in its organization, " +
		"to the task's chat when it has one; the chat the prompt went to is the one returned; a failure of the assistant rejects; " +
		"a signal that aborts while the assistant works rejects with an `AbortError`; and the task and the run passed in " +
		"(read-only in the interface) are left as they were. The harness stands in for the assistant the runner calls: it records " +
		"each prompt it gets, with the organization, the user and the chat, and can hold or fail it. " +
		"Over the bridge this suite needs the `aiTaskRunner` capability and the `signal.*` methods.",
}, Provider.AiTaskRunner, cases)

// Provider is implemented by a store that offers an AiTaskRunner.
type Provider interface {
	// AiTaskRunner prepares the suite for a run: what gives each case the
	// runner, or why the store cannot run the suite.
	AiTaskRunner(ctx context.Context) (conform.Opener[Runner], error)
}

// Run is an AiTaskRun as the ai-tasks block passes it: Status is one of
// queued, running, completed and failed; instants are RFC 3339 text, and
// an unset one is absent.
type Run struct {
	ID             string `json:"id"`
	TaskID         string `json:"taskId"`
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
	Status         string `json:"status"`
	ScheduledFor   string `json:"scheduledFor"`
	ChatID         string `json:"chatId,omitempty"`
	Error          string `json:"error,omitempty"`
	StartedAt      string `json:"startedAt,omitempty"`
	FinishedAt     string `json:"finishedAt,omitempty"`
	CreatedAt      string `json:"createdAt"`
}

// Task is an AiTask as the ai-tasks block passes it to a runner.
type Task struct {
	ID             string `json:"id"`
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
	ChatID         string `json:"chatId,omitempty"`
	AgentID        string `json:"agentId,omitempty"`
	Title          string `json:"title"`
	Prompt         string `json:"prompt"`
	Cron           string `json:"cron"`
	Timezone       string `json:"timezone"`
	Enabled        bool   `json:"enabled"`
	NextRunAt      string `json:"nextRunAt,omitempty"`
	LastRunAt      string `json:"lastRunAt,omitempty"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// Call is how the harness makes one run: Signal names the AbortSignal
// passed (the harness passes a fresh one that never aborts when it is
// ""), Hold makes the harness's assistant wait until the signal it was
// handed aborts (it then rejects with an AbortError) or the signal is
// released, and Fail makes the assistant fail.
type Call struct {
	Signal string `json:"signal,omitempty"`
	Hold   bool   `json:"hold,omitempty"`
	Fail   bool   `json:"fail,omitempty"`
}

// Sent is one prompt the runner sent to the harness's assistant, with
// whom it ran as and the chat it went to ("" for a chat the assistant
// had to start).
type Sent struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
	ChatID         string `json:"chatId"`
	Prompt         string `json:"prompt"`
	// Chat is the chat the assistant wrote to: ChatID, or the one it
	// started.
	Chat string `json:"chat"`
}

// Outcome is how a run that resolved went: the value it resolved with as
// JSON (nil for undefined), the prompts it sent, and the task and run
// objects as they were after the call.
type Outcome struct {
	Result    json.RawMessage `json:"result,omitempty"`
	Sent      []Sent          `json:"sent"`
	TaskAfter json.RawMessage `json:"taskAfter"`
	RunAfter  json.RawMessage `json:"runAfter"`
}

// Runner is better-supabase's AiTaskRunner as the cases drive it. A
// rejected run is a *conform.Rejection naming what it threw, whose Detail
// is the prompts sent before it rejected ([]Sent as JSON).
type Runner interface {
	// Identity is the runner's apiVersion (0 when it has none).
	Identity(ctx context.Context) (int, error)
	Run(ctx context.Context, task Task, run Run, c Call) (Outcome, error)
	conform.Signals
}

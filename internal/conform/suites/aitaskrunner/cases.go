package aitaskrunner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The AiTaskRunner, AiTask and AiTaskRun and the kit the cases stand for
// are read from ScaleDockHQ/better-supabase: the types in
// packages/better-supabase/src/blocks/ai-tasks/ai-tasks.ts (commit
// 19b97f9cec5e), testAiTaskRunner in src/testing/injectables.ts (commit
// ccf3b5780aa3); docs/upstream-interfaces.md has the whole record.
var cases = []conform.CaseOf[Runner]{
	{ID: "ai-task-runner/identity", Rule: "the runner carries apiVersion 1", Run: identity},
	{ID: "ai-task-runner/result-shape", Rule: "a run resolves with nothing or an object whose chatId, when present, is a non-empty string", Run: resultShape},
	{ID: "ai-task-runner/prompt-as-user", Rule: "a run sends the task's prompt once, as the task's user in the task's organization", Run: promptAsUser},
	{ID: "ai-task-runner/task-chat-kept", Rule: "a task with a chat has its prompt sent to that chat, and a chat id returned is that chat", Run: taskChatKept},
	{ID: "ai-task-runner/chat-returned", Rule: "a chat id a run returns is the chat its prompt went to, also when the assistant started the chat", Run: chatReturned},
	{ID: "ai-task-runner/input-not-mutated", Rule: "a run leaves the task and the run objects it is given as they were", Run: inputNotMutated},
	{ID: "ai-task-runner/failure-rejects", Rule: "a run whose assistant fails rejects, so that the block fails the run", Run: failureRejects},
	{ID: "ai-task-runner/abort-before", Rule: "a run given a signal aborted before it rejects with an AbortError and sends no prompt", Run: abortBefore},
	{ID: "ai-task-runner/abort-while-running", Timeout: 3 * conform.DefaultTimeout, Rule: "a run whose signal aborts while the assistant works rejects with an AbortError, without waiting for the assistant's answer", Run: abortWhileRunning},
}

// instant is a fixed time in the block's form.
const instant = "2025-06-02T09:00:00Z"

// newTask returns a task in a fresh organization for a fresh user, with
// the chat chat ("" for none), and a running run of it.
func newTask(chat string) (Task, Run) {
	task := Task{
		ID: conform.NewUUID(), OrganizationID: conform.NewUUID(), UserID: conform.NewUUID(), ChatID: chat,
		Title: "Morning digest", Prompt: "Summarise yesterday's support tickets in three bullet points. (" + conform.NewUUID() + ")",
		Cron: "0 9 * * *", Timezone: "Europe/Berlin", Enabled: true,
		NextRunAt: "2025-06-03T07:00:00Z", LastRunAt: instant, CreatedAt: "2025-06-01T08:00:00Z", UpdatedAt: "2025-06-01T08:00:00Z",
	}
	run := Run{
		ID: conform.NewUUID(), TaskID: task.ID, OrganizationID: task.OrganizationID, UserID: task.UserID,
		Status: "running", ScheduledFor: "2025-06-02T07:00:00Z", StartedAt: instant, CreatedAt: "2025-06-02T07:00:01Z",
	}
	return task, run
}

// runOnce runs a fresh task with chat and a signal that never aborts; a
// failure stops the case.
func runOnce(t *conform.T, r Runner, chat string) (Task, Outcome) {
	task, run := newTask(chat)
	out, err := r.Run(t.Context(), task, run, Call{})
	t.Must("run", err)
	return task, out
}

// chatOf reads the chat id a result names: "" with ok for none, ok false
// for a result that is not nothing or {chatId?: string}.
func chatOf(result json.RawMessage) (string, bool) {
	if len(result) == 0 {
		return "", true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(result, &obj); err != nil || obj == nil {
		return "", false
	}
	raw, has := obj["chatId"]
	if !has {
		return "", true
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil || id == "" {
		return "", false
	}
	return id, true
}

// oneSent returns the one prompt the run sent, stopping the case when it
// sent another number.
func oneSent(t *conform.T, out Outcome) Sent {
	if !t.That(len(out.Sent) == 1, "the prompts the run sent", "exactly one", out.Sent) {
		t.FailNow()
	}
	return out.Sent[0]
}

func identity(t *conform.T, r Runner) {
	v, err := r.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
}

func resultShape(t *conform.T, r Runner) {
	_, withChat := runOnce(t, r, conform.NewUUID())
	_, without := runOnce(t, r, "")
	for _, o := range []struct {
		what string
		out  Outcome
	}{{"a task with a chat", withChat}, {"a task without a chat", without}} {
		_, ok := chatOf(o.out.Result)
		got := "undefined"
		if len(o.out.Result) > 0 {
			got = string(o.out.Result)
		}
		t.That(ok, "the result of a run of "+o.what, "undefined or {chatId?: non-empty string}", got)
	}
}

func promptAsUser(t *conform.T, r Runner) {
	task, out := runOnce(t, r, "")
	s := oneSent(t, out)
	t.Eq("the prompt sent", s.Prompt, task.Prompt)
	t.Eq("the user it ran as", s.UserID, task.UserID)
	t.Eq("the organization it ran in", s.OrganizationID, task.OrganizationID)
}

func taskChatKept(t *conform.T, r Runner) {
	task, out := runOnce(t, r, conform.NewUUID())
	s := oneSent(t, out)
	t.Eq("the chat the prompt went to", s.ChatID, task.ChatID)
	if id, ok := chatOf(out.Result); ok && id != "" {
		t.Eq("the chat id returned", id, task.ChatID)
	}
}

func chatReturned(t *conform.T, r Runner) {
	for _, chat := range []string{"", conform.NewUUID()} {
		_, out := runOnce(t, r, chat)
		s := oneSent(t, out)
		if id, ok := chatOf(out.Result); ok && id != "" {
			what := "the chat id returned by a run of a task with a chat"
			if chat == "" {
				what = "the chat id returned by a run of a task without a chat"
			}
			t.That(id == s.Chat, what, "the chat the prompt went to, "+conform.Show(s.Chat), id)
		}
	}
}

func inputNotMutated(t *conform.T, r Runner) {
	task, run := newTask("")
	out, err := r.Run(t.Context(), task, run, Call{})
	t.Must("run", err)
	t.That(conform.SameJSON(out.TaskAfter, conform.JSON(task)), "the task after the run", string(conform.JSON(task)), string(out.TaskAfter))
	t.That(conform.SameJSON(out.RunAfter, conform.JSON(run)), "the run after the run", string(conform.JSON(run)), string(out.RunAfter))
}

func failureRejects(t *conform.T, r Runner) {
	task, run := newTask("")
	out, err := r.Run(t.Context(), task, run, Call{Fail: true})
	var rej *conform.Rejection
	switch {
	case err == nil:
		got := "undefined"
		if len(out.Result) > 0 {
			got = string(out.Result)
		}
		t.Error(&conform.Mismatch{What: "a run whose assistant failed", Expected: "a rejection", Actual: "it resolved with " + got})
	case !errors.As(err, &rej):
		t.Must("run", err)
	}
}

func abortBefore(t *conform.T, r Runner) {
	task, run := newTask("")
	id := "signal-" + conform.NewUUID()
	t.Must("abort the signal", r.Abort(t.Context(), id))
	_, err := r.Run(t.Context(), task, run, Call{Signal: id})
	conform.WantAbortError(t, "a run with a signal aborted before it", conform.Settled{Err: err})
	var rej *conform.Rejection
	if errors.As(err, &rej) && len(rej.Detail) > 0 {
		var sent []Sent
		_ = json.Unmarshal(rej.Detail, &sent)
		t.That(len(sent) == 0, "the prompts a run with an aborted signal sent", "none", fmt.Sprint(len(sent)))
	}
}

func abortWhileRunning(t *conform.T, r Runner) {
	task, run := newTask("")
	id := "signal-" + conform.NewUUID()
	s := conform.AbortWhileHeld(t, r, id, func(ctx context.Context) error {
		_, err := r.Run(ctx, task, run, Call{Signal: id, Hold: true})
		return err
	})
	conform.WantAbortError(t, "a run whose signal aborted while the assistant worked", s)
}

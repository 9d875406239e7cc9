package memstore

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
)

// runnerMutation names a deliberate fault of the reference AiTaskRunner,
// which only the mutant tests set; the zero value is the reference. The
// faults lie inside the runner, between the signal, the task and the
// assistant, where a wrapper of the Runner interface cannot reach.
type runnerMutation string

// refRunner is the reference AiTaskRunner: it refuses an aborted signal,
// sends the task's prompt once to the harness's assistant as the task's
// user, in the task's chat when it has one, hands the assistant its
// signal, and resolves with the chat the assistant wrote to.
type refRunner struct {
	*memSignals
	// mut is a mutant's fault, set only by the mutant tests.
	mut runnerMutation
}

func (r *refRunner) Identity(context.Context) (int, error) {
	if r.mut == "no-api-version" {
		return 0, nil
	}
	return 1, nil
}

// assistant is the harness's stand-in for the assistant a runner calls.
type assistant func(org, user, chat, prompt string, handed *memSignal) (string, error)

// Run is the harness's call: the signal c names (a fresh one when none),
// an assistant that records each prompt and fails or is held as c asks,
// and the task and the run as objects the runner could change.
func (r *refRunner) Run(ctx context.Context, task aitaskrunner.Task, run aitaskrunner.Run, c aitaskrunner.Call) (aitaskrunner.Outcome, error) {
	id := c.Signal
	if id == "" {
		id = "live-" + conform.NewUUID()
	}
	var sent []aitaskrunner.Sent
	ask := func(org, user, chat, prompt string, handed *memSignal) (string, error) {
		s := aitaskrunner.Sent{OrganizationID: org, UserID: user, ChatID: chat, Prompt: prompt, Chat: chat}
		if s.Chat == "" {
			s.Chat = conform.NewUUID()
		}
		sent = append(sent, s)
		if c.Fail {
			return "", &conform.Rejection{Name: "Error", Message: "the assistant failed"}
		}
		if c.Hold {
			if err := r.hold(ctx, id, handed); err != nil {
				return "", err
			}
		}
		return s.Chat, nil
	}
	chat, err := r.run(&task, &run, r.get(id), ask)
	if err != nil {
		if rej, ok := err.(*conform.Rejection); ok {
			if sent == nil {
				sent = []aitaskrunner.Sent{}
			}
			rej.Detail = conform.JSON(sent)
		}
		return aitaskrunner.Outcome{}, err
	}
	out := aitaskrunner.Outcome{Sent: sent, TaskAfter: conform.JSON(task), RunAfter: conform.JSON(run)}
	switch {
	case r.mut == "resolves-null":
		out.Result = json.RawMessage("null")
	case chat != "":
		out.Result = conform.JSON(map[string]string{"chatId": chat})
	}
	return out, nil
}

// run is the runner proper.
func (r *refRunner) run(task *aitaskrunner.Task, run *aitaskrunner.Run, s *memSignal, ask assistant) (string, error) {
	if r.mut == "ignores-signal" {
		s = nil
	}
	if s.isAborted() && r.mut != "sends-then-checks" {
		return "", abortError()
	}
	user, chat := task.UserID, task.ChatID
	switch r.mut {
	case "sends-as-service":
		user = ""
	case "new-chat-each-run":
		chat = ""
	case "checks-signal-once":
		s = nil
	}
	wrote, err := ask(task.OrganizationID, user, chat, task.Prompt, s)
	if r.mut == "sends-then-checks" && s.isAborted() {
		return "", abortError()
	}
	if err != nil {
		if r.mut == "swallows-failure" {
			return "", nil
		}
		return "", err
	}
	switch r.mut {
	case "mutates-input":
		run.Status = "completed"
	case "returns-run-id":
		if task.ChatID == "" {
			wrote = run.ID
		}
	}
	return wrote, nil
}

// AiTaskRunner gives each case a reference runner with signals of its
// own.
func (m *memoryStore) AiTaskRunner(context.Context) (conform.Opener[aitaskrunner.Runner], error) {
	return func(t *conform.T) (aitaskrunner.Runner, error) {
		t.SetPrefix(m.prefix())
		return &refRunner{memSignals: &memSignals{}}, nil
	}, nil
}

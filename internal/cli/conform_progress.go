package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// conform's progress on stderr while the cases run: the live bubbletea
// view on a terminal, one plain line per finished case elsewhere.

// liveView says whether progress is the live view: stderr is a terminal
// and CI is not set (CI logs get plain lines).
func liveView(app *App) bool {
	if app.CI() {
		return false
	}
	return app.ErrTTY && app.getenv("TERM") != "dumb"
}

// plainProgress prints a line on stderr per finished case that failed,
// was skipped or did not run: the view for logs and pipes. A line per
// passed case too when passed is set (stderr is a terminal, or -v): a log
// of a hundred ok lines hides the few that matter.
func plainProgress(app *App, w io.Writer, passed bool) func(conform.Event) {
	st := app.ErrStyle
	return func(e conform.Event) {
		if !e.Done {
			return
		}
		r := e.Result
		switch r.Outcome {
		case conform.Pass:
			if !passed {
				return
			}
			fmt.Fprintf(w, "%s %s %s\n", st.Green(r.Outcome.Mark()), r.ID, st.Dim(fmtDur(r.Elapsed)))
		case conform.Fail:
			fmt.Fprintf(w, "%s %s %s\n", st.Red(r.Outcome.Mark()), r.ID, st.Dim(fmtDur(r.Elapsed)))
		case conform.Skipped, conform.NotRun:
			fmt.Fprintf(w, "%s %s\n", st.Yellow(r.Outcome.Mark()), r.ID)
		}
	}
}

// progressModel is the live view on a terminal: counts, the cases running
// now with how long they have run, the failures so far, and the elapsed
// time.
type progressModel struct {
	store   string
	total   int
	start   time.Time
	now     time.Time
	running []runningCase
	passed  int
	failed  []string
	skipped int
	done    bool
	style   Style
}

type runningCase struct {
	id    string
	since time.Time
}

type (
	progressTick  time.Time
	progressEvent conform.Event
	progressDone  struct{}
)

func newProgressModel(store string, total int, st Style, now time.Time) progressModel {
	return progressModel{store: store, total: total, start: now, now: now, style: st}
}

func tickProgress() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return progressTick(t) })
}

func (m progressModel) Init() tea.Cmd { return tickProgress() }

func (m progressModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case progressTick:
		m.now = time.Time(msg)
		if m.done {
			return m, nil
		}
		return m, tickProgress()
	case progressEvent:
		e := conform.Event(msg)
		if !e.Done {
			m.running = append(m.running, runningCase{e.Case.ID, m.now})
			return m, nil
		}
		m.running = slices.DeleteFunc(m.running, func(r runningCase) bool { return r.id == e.Case.ID })
		switch e.Result.Outcome {
		case conform.Pass:
			m.passed++
		case conform.Fail:
			m.failed = append(m.failed, e.Case.ID)
		case conform.Skipped:
			m.skipped++
		}
	case progressDone:
		m.done = true
		return m, tea.Quit
	}
	return m, nil
}

func (m progressModel) View() string {
	if m.done {
		// The report follows on stdout; leave no stale frame behind.
		return ""
	}
	st := m.style
	var b strings.Builder
	finished := m.passed + len(m.failed) + m.skipped
	fmt.Fprintf(&b, "%s %s  %d/%d  %s  %s  %s  %s\n", st.Bold("conform"), m.store, finished, m.total,
		st.Green(fmt.Sprintf("%d passed", m.passed)), st.Red(fmt.Sprintf("%d failed", len(m.failed))),
		st.Yellow(fmt.Sprintf("%d skipped", m.skipped)), st.Dim(m.now.Sub(m.start).Round(100*time.Millisecond).String()))
	for i, r := range m.running {
		if i == 8 {
			fmt.Fprintf(&b, "  ... and %d more running\n", len(m.running)-i)
			break
		}
		fmt.Fprintf(&b, "  running %s %s\n", r.id, st.Dim(m.now.Sub(r.since).Round(100*time.Millisecond).String()))
	}
	for _, id := range m.failed {
		fmt.Fprintf(&b, "  %s %s\n", st.Red(conform.Fail.Mark()), id)
	}
	return b.String()
}

// runWithView runs the cases under the live bubbletea view on stderr.
func runWithView(ctx context.Context, app *App, store conform.Store, cases []conform.Case, sel conform.Options) (*conform.Report, error) {
	m := newProgressModel(store.Name(), len(cases), app.ErrStyle, time.Now())
	p := tea.NewProgram(m, tea.WithOutput(app.Err), tea.WithInput(nil), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	sel.OnEvent = func(e conform.Event) { p.Send(progressEvent(e)) }
	reports := make(chan *conform.Report, 1)
	go func() {
		rep := conform.Run(ctx, store, cases, sel)
		reports <- rep
		p.Send(progressDone{})
	}()
	_, err := p.Run()
	// Even when the view stopped early (an interrupt), wait for the run to
	// wind down, so that cleanup finds no case in flight.
	rep := <-reports
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		return nil, fmt.Errorf("progress view: %w", err)
	}
	return rep, nil
}

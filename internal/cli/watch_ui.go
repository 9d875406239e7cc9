package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// watchScreen says whether --watch shows the live screen: stdin and
// stdout are terminals (the keys and the screen), CI is not set and TERM
// is not dumb.
func watchScreen(app *App) bool {
	return app.Interactive() && app.getenv("TERM") != "dumb"
}

// plainUI writes each round's result to stdout as it ends: a line that
// says what started it, the report, and a line with the outcome and the
// time it took. It reads no keys.
type plainUI struct {
	w  io.Writer
	st Style
	k  chan watchKey
}

func newPlainUI(app *App, name string) *plainUI {
	fmt.Fprintf(app.Err, "%s watching for changes; Ctrl-C stops\n", app.ErrStyle.Dim(name+":"))
	return &plainUI{w: app.Out, st: app.Style, k: make(chan watchKey)}
}

func (u *plainUI) started(int, string) {}

func (u *plainUI) done(r roundResult) {
	fmt.Fprintf(u.w, "%s\n", u.st.Bold(fmt.Sprintf("── round %d: %s", r.n, r.why)))
	io.WriteString(u.w, strings.TrimRight(r.text, "\n")+"\n")
	fmt.Fprintf(u.w, "%s\n", roundLine(u.st, r))
}

func (u *plainUI) idle(msg string)       { u.note(msg) }
func (u *plainUI) note(msg string)       { fmt.Fprintf(u.w, "%s %s\n", u.st.Yellow("note:"), msg) }
func (u *plainUI) keys() <-chan watchKey { return u.k }
func (u *plainUI) close()                {}

// roundLine is the last line of a round: its outcome, its time and the
// bridge's state.
func roundLine(st Style, r roundResult) string {
	word := st.Green("passed")
	if !r.ok {
		word = st.Red("failed")
	}
	line := fmt.Sprintf("round %d %s in %s: %s", r.n, word, fmtTook(r.took), r.summary)
	if r.bridge != "" {
		line += st.Dim(" (bridge " + r.bridge + ")")
	}
	return line
}

// fmtTook is a round's time: milliseconds below a second.
func fmtTook(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(10 * time.Millisecond).String()
}

// screenUI is the live screen on a terminal: a bubbletea program on the
// alternate screen that shows the last round's result, the round running
// now, and the keys.
type screenUI struct {
	p     *tea.Program
	k     chan watchKey
	ended chan struct{}
	out   io.Writer
	st    Style

	mu   sync.Mutex
	last *roundResult
}

func newScreenUI(app *App, name string, quit func()) (*screenUI, error) {
	out := app.Out
	if o, ok := out.(*outWriter); ok {
		out = o.terminal()
	}
	u := &screenUI{k: make(chan watchKey, 1), ended: make(chan struct{}), out: out, st: app.Style}
	m := watchModel{name: name, st: app.Style, keys: u.k, quit: quit, now: time.Now()}
	opts := []tea.ProgramOption{tea.WithOutput(out), tea.WithAltScreen(), tea.WithoutSignalHandler()}
	if f, ok := app.In.(*os.File); ok {
		opts = append(opts, tea.WithInput(f))
	} else {
		opts = append(opts, tea.WithInput(app.In))
	}
	u.p = tea.NewProgram(m, opts...)
	go func() {
		defer close(u.ended)
		if _, err := u.p.Run(); err != nil {
			// The screen is gone: stop the session rather than run on
			// unseen.
			quit()
		}
	}()
	return u, nil
}

func (u *screenUI) started(n int, why string) { u.p.Send(watchStarted{n: n, why: why, at: time.Now()}) }

func (u *screenUI) done(r roundResult) {
	u.mu.Lock()
	u.last = &r
	u.mu.Unlock()
	u.p.Send(watchDone(r))
}

func (u *screenUI) note(msg string)       { u.p.Send(watchNote{msg: msg}) }
func (u *screenUI) idle(msg string)       { u.p.Send(watchNote{msg: msg, idle: true}) }
func (u *screenUI) keys() <-chan watchKey { return u.k }

// close leaves the alternate screen and prints the last round's outcome
// line, so that the terminal keeps it.
func (u *screenUI) close() {
	u.p.Quit()
	<-u.ended
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.last != nil {
		fmt.Fprintln(u.out, roundLine(u.st, *u.last))
	}
}

type (
	watchStarted struct {
		n   int
		why string
		at  time.Time
	}
	watchDone roundResult
	// watchNote is a note for the screen; idle ends the running round.
	watchNote struct {
		msg  string
		idle bool
	}
	watchTick time.Time
)

// watchModel is the screen: a header, the last result clipped to the
// terminal's height, and the keys.
type watchModel struct {
	name string
	st   Style
	keys chan<- watchKey
	quit func()

	width, height int
	now           time.Time
	running       *watchStarted
	last          *roundResult
	note          string
}

func (m watchModel) Init() tea.Cmd { return watchTickCmd() }

func watchTickCmd() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return watchTick(t) })
}

func (m watchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			m.quit()
			return m, nil
		case "a", "enter":
			m.send(keyAll)
		case "f":
			m.send(keyFailures)
		}
	case watchTick:
		m.now = time.Time(msg)
		return m, watchTickCmd()
	case watchStarted:
		m.running, m.note = &msg, ""

	case watchDone:
		r := roundResult(msg)
		m.running, m.last = nil, &r
	case watchNote:
		m.note = msg.msg
		if msg.idle {
			m.running = nil
		}
	}
	return m, nil
}

// send passes a key on, dropping it when one is waiting already.
func (m watchModel) send(k watchKey) {
	select {
	case m.keys <- k:
	default:
	}
}

func (m watchModel) View() string {
	st := m.st
	var head []string
	head = append(head, st.Bold(m.name)+st.Dim(" --watch"))
	switch {
	case m.running != nil:
		head = append(head, st.Yellow(fmt.Sprintf("round %d running for %s: %s", m.running.n, fmtTook(max(0, m.now.Sub(m.running.at))), m.running.why)))
	case m.last != nil:
		head = append(head, roundLine(st, *m.last))
	}
	if m.last != nil && m.running != nil {
		head = append(head, st.Dim("last: ")+roundLine(st, *m.last))
	}
	if m.last != nil {
		head = append(head, st.Dim("after: "+m.last.why))
	}
	if m.note != "" {
		head = append(head, st.Yellow("note: ")+m.note)
	}
	foot := st.Dim("a re-run all · f re-run failures · q quit")
	var body []string
	if m.last != nil {
		body = strings.Split(strings.TrimRight(m.last.text, "\n"), "\n")
	}
	if m.height > 0 {
		room := m.height - len(head) - 3
		if room < 1 {
			room = 1
		}
		if len(body) > room {
			cut := len(body) - room + 1
			body = append(body[:room-1], st.Dim(fmt.Sprintf("... %d more lines (run without --watch for the whole report)", cut)))
		}
	}
	var b strings.Builder
	for _, l := range head {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n" + foot)
	return b.String()
}

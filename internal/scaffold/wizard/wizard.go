// Package wizard asks, on a terminal, for the "bsadapter new" values that
// the flags left open: one question at a time, with its default shown and
// its validation run on every key. It only collects values; rendering and
// writing are the same code path as without the wizard. internal/cli runs
// it only when stdin and stdout are terminals, --yes is absent and CI is
// unset.
package wizard

import (
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// ErrCancelled is returned when the user leaves the wizard (Esc, Ctrl-C).
var ErrCancelled = errors.New("cancelled")

// Field is one question.
type Field struct {
	// Key names the value in the result.
	Key string
	// Label is the question; Flag the flag that answers it without asking.
	Label, Flag string
	// Default computes the default from the answers so far ("" for none).
	Default func(answers map[string]string) string
	// Validate checks a value (the default when the input is empty).
	Validate func(value string, answers map[string]string) error
	// Help is shown under the question.
	Help string
}

type model struct {
	fields  []Field
	answers map[string]string
	i       int
	input   []rune
	err     error
	done    bool
	quit    bool
}

func (m *model) value() string {
	if v := strings.TrimSpace(string(m.input)); v != "" {
		return v
	}
	if d := m.fields[m.i].Default; d != nil {
		return d(m.answers)
	}
	return ""
}

func (m *model) check() {
	f := m.fields[m.i]
	if f.Validate != nil {
		m.err = f.Validate(m.value(), m.answers)
	} else {
		m.err = nil
	}
}

func (m *model) Init() tea.Cmd {
	m.check()
	return nil
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	key, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	switch key.Type {
	case tea.KeyCtrlC, tea.KeyEsc:
		m.quit = true
		return m, tea.Quit
	case tea.KeyEnter:
		m.check()
		if m.err != nil {
			return m, nil
		}
		m.answers[m.fields[m.i].Key] = m.value()
		m.i++
		m.input = nil
		if m.i == len(m.fields) {
			m.done = true
			return m, tea.Quit
		}
	case tea.KeyTab:
		// Tab fills the input with the default so it can be edited.
		if len(m.input) == 0 {
			m.input = []rune(m.value())
		}
	case tea.KeyBackspace:
		if len(m.input) > 0 {
			m.input = m.input[:len(m.input)-1]
		}
	case tea.KeyCtrlU:
		m.input = nil
	case tea.KeyRunes, tea.KeySpace:
		m.input = append(m.input, key.Runes...)
	default:
		return m, nil
	}
	m.check()
	return m, nil
}

func (m *model) View() string {
	if m.done || m.quit {
		return ""
	}
	var b strings.Builder
	b.WriteString("bsadapter new\n\n")
	for j := 0; j < m.i; j++ {
		fmt.Fprintf(&b, "  %s: %s\n", m.fields[j].Label, m.answers[m.fields[j].Key])
	}
	f := m.fields[m.i]
	def := ""
	if f.Default != nil {
		if d := f.Default(m.answers); d != "" {
			def = " [" + d + "]"
		}
	}
	fmt.Fprintf(&b, "> %s%s: %s_\n", f.Label, def, string(m.input))
	if f.Help != "" {
		fmt.Fprintf(&b, "  %s (or pass %s)\n", f.Help, f.Flag)
	}
	if m.err != nil {
		fmt.Fprintf(&b, "  ✗ %s\n", m.err)
	} else {
		b.WriteString("  ✓ enter to accept\n")
	}
	b.WriteString("\n  enter: next · tab: edit the default · esc: cancel\n")
	return b.String()
}

// Run asks the questions on in/out (a terminal) and returns the answers by
// Key. It returns ErrCancelled when the user leaves.
func Run(in io.Reader, out io.Writer, fields []Field, preset map[string]string) (map[string]string, error) {
	answers := map[string]string{}
	for k, v := range preset {
		answers[k] = v
	}
	if len(fields) == 0 {
		return answers, nil
	}
	m := &model{fields: fields, answers: answers}
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler())
	if _, err := p.Run(); err != nil {
		return nil, err
	}
	if !m.done {
		return nil, ErrCancelled
	}
	return answers, nil
}

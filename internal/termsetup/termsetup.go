// Package termsetup keeps bsadapter from waiting on the terminal at start.
//
// bubbletea's package initialisation asks lipgloss whether the terminal's
// background is dark, and lipgloss asks the terminal with an escape
// sequence (OSC 11), then waits up to 5 seconds for an answer. Terminals
// that do not answer (some IDE consoles, serial lines, script(1), many
// remote shells) made every bsadapter command, and the 'new' wizard before
// its first prompt, hang for those 5 seconds.
//
// This package's initialisation runs before bubbletea's: Go initialises
// packages in the order of their import paths once their own imports are
// ready, and this path sorts before github.com/charmbracelet/bubbletea. It
// settles the question without asking the terminal: from COLORFGBG when
// the terminal sets it, else dark, which is what lipgloss assumes when no
// answer comes. internal/cli imports it for this effect alone.
package termsetup

import (
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

func init() {
	lipgloss.SetHasDarkBackground(DarkBackground(os.Getenv("COLORFGBG")))
}

// DarkBackground reads COLORFGBG ("fg;bg", or "fg;default;bg" in rxvt):
// background colours 0-6 and 8 are the dark ones of the 16-colour palette.
// Unset or unreadable, it says dark.
func DarkBackground(colorfgbg string) bool {
	parts := strings.Split(colorfgbg, ";")
	bg, err := strconv.Atoi(parts[len(parts)-1])
	if err != nil {
		return true
	}
	return bg <= 6 || bg == 8
}

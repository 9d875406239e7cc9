package bridge

import (
	"strings"
	"sync"
)

// maxStderrLine caps one kept stderr line, so that a bridge flooding stderr
// with one endless line cannot grow memory.
const maxStderrLine = 1000

// tailBuffer keeps the last n complete lines written to it (each cut to
// maxStderrLine bytes) and counts the ones it dropped.
type tailBuffer struct {
	mu      sync.Mutex
	n       int
	lines   []string
	cur     strings.Builder
	curCut  bool
	dropped int
}

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{n: n} }

// Write adds a piece of a line; complete says the piece ended with a newline.
func (t *tailBuffer) Write(p []byte, complete bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := maxStderrLine - t.cur.Len(); room > 0 {
		if len(p) > room {
			t.cur.Write(p[:room])
			t.curCut = true
		} else {
			t.cur.Write(p)
		}
	} else if len(p) > 0 {
		t.curCut = true
	}
	if complete {
		t.push()
	}
}

func (t *tailBuffer) push() {
	line := strings.TrimRight(t.cur.String(), "\r\n")
	if t.curCut {
		line += " …(line cut)"
	}
	t.cur.Reset()
	t.curCut = false
	t.lines = append(t.lines, line)
	if len(t.lines) > t.n {
		t.dropped += len(t.lines) - t.n
		t.lines = append(t.lines[:0:0], t.lines[len(t.lines)-t.n:]...)
	}
}

// String returns the kept lines (plus an unfinished last line), preceded by
// a note of how many earlier lines were dropped.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	if t.dropped > 0 {
		b.WriteString("(")
		b.WriteString(itoa(t.dropped))
		b.WriteString(" earlier lines not shown)\n")
	}
	for _, l := range t.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if t.cur.Len() > 0 {
		b.WriteString(strings.TrimRight(t.cur.String(), "\r\n"))
		b.WriteByte('\n')
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

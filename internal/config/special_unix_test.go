//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe as bsadapter.json is refused at once, naming the file: it
// is never opened for a read that would wait for a writer, by Load or by
// Find from a folder below it.
func TestLoadRefusesNamedPipe(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, load := range map[string]func() error{
		"Load": func() error { _, err := Load(p); return err },
		"Find": func() error { _, err := Find(dir); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- load() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p+" is a named pipe, not a regular file") {
				t.Errorf("%s: %v", name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s waits on the named pipe", name)
		}
	}
}

// A device is refused the same way (reading /dev/zero would never end).
func TestLoadRefusesDevice(t *testing.T) {
	done := make(chan error, 1)
	go func() { _, err := Load("/dev/zero"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "/dev/zero is a character device, not a regular file") {
			t.Errorf("got %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Load reads /dev/zero")
	}
}

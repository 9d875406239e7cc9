package templates

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// TestSnapshotsMatchTheirNames: every released snapshot unpacks and
// hashes to the version its file is named after, so upgrade's base for
// that version is what the release rendered.
func TestSnapshotsMatchTheirNames(t *testing.T) {
	entries, err := fs.ReadDir(snapshots, "versions")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".tar.gz")
		if !ok {
			continue
		}
		if !ValidID(id) {
			t.Errorf("versions/%s: not named ID.tar.gz", e.Name())
			continue
		}
		if _, err := Version(id); err != nil {
			t.Errorf("versions/%s: %v", e.Name(), err)
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	b1, err := Snapshot(FS)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := Snapshot(FS)
	if string(b1) != string(b2) {
		t.Fatal("two snapshots of one tree differ: the release step would not be reproducible")
	}
	back, err := Unpack(b1)
	if err != nil {
		t.Fatal(err)
	}
	id, err := IDOf(back)
	if err != nil || id != CurrentID() {
		t.Fatalf("unpacked snapshot is version %s (%v), want %s", id, err, CurrentID())
	}
}

func TestVersionLookup(t *testing.T) {
	if !ValidID(CurrentID()) {
		t.Fatalf("current ID %q is not shaped like an ID", CurrentID())
	}
	if f, err := Version(CurrentID()); err != nil || f != fs.FS(FS) {
		t.Fatalf("current version: %v", err)
	}
	var uv *UnknownVersionError
	for _, id := range []string{"t-0000000000000000", "dev", ""} {
		if _, err := Version(id); !errors.As(err, &uv) || !strings.Contains(err.Error(), CurrentID()) {
			t.Errorf("Version(%q) = %v, want an UnknownVersionError listing the known versions", id, err)
		}
	}
	old := fstest.MapFS{"adapter/x.ts.tmpl": {Data: []byte("old\n")}}
	id, err := Register(old)
	if err != nil {
		t.Fatal(err)
	}
	defer delete(extra, id)
	if id == CurrentID() {
		t.Fatal("a different tree has the current ID")
	}
	got, err := Version(id)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := fs.ReadFile(got, "adapter/x.ts.tmpl"); string(b) != "old\n" {
		t.Fatalf("registered version reads %q", b)
	}
	// One byte changes the version.
	old2 := fstest.MapFS{"adapter/x.ts.tmpl": {Data: []byte("old!\n")}}
	if id2, _ := IDOf(old2); id2 == id {
		t.Fatal("a changed file keeps the version ID")
	}
}

func TestUnpackRefusesOddEntries(t *testing.T) {
	if _, err := Unpack([]byte("not gzip")); err == nil {
		t.Fatal("garbage unpacked")
	}
}

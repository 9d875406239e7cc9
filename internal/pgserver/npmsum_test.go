//go:build linux

package pgserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damage overwrites bytes of the file p at off with b, keeping its size,
// and sets its modification time back, as a change that leaves no trace
// in ls -l.
func damage(t *testing.T, p string, off int64, b []byte) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(p); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the damage shows in the file's size or time")
	}
}

// restamp makes the stamp of the file name in dir say what stat says
// now, as if the damage had come without a write (a failing disk).
func restamp(t *testing.T, dir, name string) {
	t.Helper()
	stamps := readStamps(dir)
	stamps[name] = fileStamp(filepath.Join(dir, name))
	b, _ := json.Marshal(stamps)
	if err := os.WriteFile(filepath.Join(dir, npmStampFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unpackedPackage makes a package folder as fetchNPM leaves it: files,
// their checksums and stamps in the marker, pinned to pin.
func unpackedPackage(t *testing.T, pin string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]int64{}
	for name, body := range map[string]string{"native/bin/postgres": strings.Repeat("binary ", 1000), "native/lib/libpq.so.5": "library"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		files[name] = int64(len(body))
	}
	sums, stamps, err := sumFiles(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := json.Marshal(npmManifest{Package: "p", Integrity: pin, Files: files, Sums: sums})
	os.WriteFile(filepath.Join(dir, npmReadyMarker), m, 0o644)
	s, _ := json.Marshal(stamps)
	os.WriteFile(filepath.Join(dir, npmStampFile), s, 0o644)
	return dir
}

// A cached file damaged without a change of size or time is noticed
// before it is run: it was written, so its stamp differs and it is hashed.
// Damage that leaves the stamp as it was (a failing disk) is found by the
// whole check, which reads every file.
func TestCheckUnpackedNoticesDamageOfTheSameSize(t *testing.T) {
	const pin = "sha512-test"
	dir := unpackedPackage(t, pin)
	if err := checkUnpacked(dir, pin); err != nil {
		t.Fatalf("a whole package: %v", err)
	}
	bin := filepath.Join(dir, "native/bin/postgres")
	// The change time is what gives the write away; make sure it moves.
	time.Sleep(50 * time.Millisecond)
	damage(t, bin, 100, []byte("XXXX"))
	err := checkUnpacked(dir, pin)
	if err == nil || !strings.Contains(err.Error(), "native/bin/postgres does not match the checksum") {
		t.Errorf("after a write of the same size: %v, want the checksum named", err)
	}
	restamp(t, dir, "native/bin/postgres")
	if err := checkUnpacked(dir, pin); err != nil {
		t.Fatalf("the check before a start reads no file whose stamp matches, yet: %v", err)
	}
	if err := checkPackage(dir, pin, true); err == nil || !strings.Contains(err.Error(), "native/bin/postgres does not match the checksum") {
		t.Errorf("the whole check: %v, want the checksum named", err)
	}

	// A package unpacked by an older bsadapter has no checksums: it is
	// fetched again rather than trusted.
	old := unpackedPackage(t, pin)
	b, _ := os.ReadFile(filepath.Join(old, npmReadyMarker))
	var m npmManifest
	json.Unmarshal(b, &m)
	m.Sums = nil
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(old, npmReadyMarker), b, 0o644)
	if err := checkUnpacked(old, pin); err == nil || !strings.Contains(err.Error(), "no checksums") {
		t.Errorf("a package without checksums: %v", err)
	}
}

package pgserver

import (
	"fmt"
	"os"
	"path/filepath"
)

// CacheDir is the folder bsadapter keeps its PostgreSQL templates in
// (os.UserCacheDir()/bsadapter), whether or not it exists yet.
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "bsadapter"), nil
}

// NoCacheError is a strategy's error when the user has no cache folder
// ($XDG_CACHE_HOME and $HOME unset) to keep what it needs in.
type NoCacheError struct {
	Strategy string // "npm"
	What     string // what it keeps there
	Err      error  // os.UserCacheDir's
}

// Error says what was to be kept and the fix.
func (e *NoCacheError) Error() string {
	return fmt.Sprintf("pgserver: %s: no cache folder to keep %s in (%v): set XDG_CACHE_HOME, or HOME, to a writable folder", e.Strategy, e.What, e.Err)
}

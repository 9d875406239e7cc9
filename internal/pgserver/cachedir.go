package pgserver

import (
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

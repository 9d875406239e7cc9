package cli

import (
	"os"
	"path/filepath"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/spf13/cobra"
)

// addBlocksFlag adds --blocks DIR, which takes the modules from a folder
// instead of the embedded ones.
func addBlocksFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "blocks", "", "folder of another implementation of the blocks (.sql files with bsadapter's or better-supabase's module headers, such as a better-supabase checkout's supabase/schemas); default: \"blocks\" in bsadapter.json, else the embedded blocks")
}

// blockSet returns the modules to work with: the folder --blocks names,
// else the one "blocks" in the nearest bsadapter.json names (relative to
// the file), else the embedded blocks.
func blockSet(dir string) (*blocks.Set, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, envErr(err, "")
		}
		cfg, err := config.Find(wd)
		if err != nil {
			return nil, envErr(err, "fix bsadapter.json, or pass --blocks DIR")
		}
		if cfg == nil || cfg.Blocks == "" {
			return blocks.Embedded(), nil
		}
		dir = filepath.Join(cfg.Dir, cfg.Blocks)
	}
	set, err := blocks.LoadDir(dir)
	if err != nil {
		return nil, usageErr("give the folder that holds the modules' .sql files, each starting with '-- bsadapter block: NAME' and '-- version: N', or with better-supabase's '-- @bs-module NAME@VERSION MODE'", "%v", err)
	}
	return set, nil
}

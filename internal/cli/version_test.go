package cli

import (
	"runtime/debug"
	"testing"
)

func TestBuildFromVCS(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	bi := buildFrom(info)
	if bi.Version != "dev" || bi.Commit != "0123abc-dirty" || bi.Date != "2026-01-02T03:04:05Z" {
		t.Errorf("from a modified checkout: %+v", bi)
	}
	info.Settings[2].Value = "false"
	if bi := buildFrom(info); bi.Commit != "0123abc" {
		t.Errorf("from a clean checkout: %+v", bi)
	}
	if bi := buildFrom(nil); bi.Version != "dev" || bi.Commit != "unknown" {
		t.Errorf("without build info: %+v", bi)
	}
}

// Command bsadapter is the toolkit for writing better-supabase adapters.
package main

import (
	"os"

	"github.com/bsadapter/bsadapter/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.OSStdio()))
}

// Package cli is the cobra command tree of bsadapter: flag parsing, the
// output policy (stdout for results, stderr for the rest, colors only on a
// terminal) and the exit codes. It is the only package that knows about
// terminals.
//
// Every command has one shape: a file of its own with an options struct, a
// constructor newXCmd that builds the cobra command and fills the options,
// and runX(ctx, opts) that does the work. root.go registers them all;
// inputs.go resolves what several commands share (the bridge, the
// PostgreSQL server, CI); output.go holds the output policy and --format;
// conform_progress.go is the live progress view.
//
// Dependency direction: cmd/bsadapter -> internal/cli -> {internal/fixtures,
// internal/conform, internal/scaffold} -> {internal/bridge,
// internal/pgserver, blocks, schemas, templates}. Packages below cli return
// values and errors and never print to a terminal themselves.
// internal/report, the output layer (JUnit, GitHub annotations, the JSON
// documents and the result words), sits beside them: cli, fixtures and
// conform use it, and it uses only blocks and schemas.
package cli

// Package report is bsadapter's one output layer for machines: the result
// vocabulary every command shares, the JUnit model and its writer, the
// GitHub Actions annotation writer, and the typed JSON documents (each with
// a schemaVersion) that commands print with --format json.
//
// Packages that run checks (internal/fixtures, internal/conform) build the
// values defined here; only this package turns them into bytes. It imports
// no terminal library and nothing that runs checks, so every package may
// use it.
package report

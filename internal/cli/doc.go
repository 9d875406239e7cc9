// Package cli is the cobra command tree of bsadapter: flag parsing, the
// output policy (stdout for results, stderr for the rest, colors only on a
// terminal) and the exit codes. It is the only package, with the wizard
// that collects the values of 'new' on a terminal, that knows about
// terminals.
//
// Every command has one shape: a file of its own with an options struct, a
// constructor newXCmd(app, runF) that builds the cobra command, fills the
// options and checks them with the options' validate (every rule on the
// flags, reading nothing else), and runX(ctx, opts) that does the work;
// a test passes its own runF to see the options a command line gives.
// root.go registers them all; factory.go gives the commands what they
// share, each found once per run (the working directory and
// bsadapter.json, the blocks, the bridge, PostgreSQL); inputs.go reads the
// flags several commands share; output.go holds the output policy and
// --format; conform_progress.go is the live progress view.
//
// # Layers
//
// The packages of the module, top to bottom, one layer a line. A package
// imports packages of the layers below its own, never of its own layer or
// above: the stores beside the conformance kit do not import each other,
// and pgserver, which gives servers, does not import blocks, which is a
// schema.
//
//	cmd/bsadapter internal/cmd/docgen internal/cmd/tmplsnap
//	internal/docgen
//	internal/cli
//	internal/fixtures internal/lint internal/scaffold internal/scaffold/wizard internal/conform/memstore internal/conform/pgstore internal/conform/bridgestore internal/conform/storebench
//	internal/conform/suites
//	internal/conform/suites/*
//	internal/conform
//	internal/report
//	internal/bridge internal/pgserver internal/config internal/termsetup internal/watch blocks schemas templates
//	internal/filekind internal/merge bench/internal/benchkit
//
// cmd/bsadapter is main alone; internal/cli builds the commands on the
// packages below it, which return values and errors and never print to a
// terminal. internal/conform is the kit (the runner, the case's T, the
// catalog); each suite is a package below internal/conform/suites (its
// interface, its cases, its catalog text), and internal/conform/suites
// itself is the one list of them. A line ending in "/*" stands for every
// package directly below that folder, which may import each other (the
// chat suite builds on the streams suite). The stores sit above the
// suites they implement, and neither the kit nor a suite imports a
// store. internal/report is the output layer (JUnit, GitHub annotations,
// the JSON documents and the result words) that cli, fixtures and conform
// share. internal/filekind, at the bottom, names what a file system entry
// is (a named pipe, a device, ...) for every message that refuses one;
// internal/merge beside it is the three-way line merge of add and upgrade.
// bench/internal/benchkit, also at the bottom, is what the benchmarks
// share (building bsadapter, timing a run, reading a conform report,
// medians); only they import it.
//
// Test support, which only tests import (it may import any layer; no
// package of a layer imports it, so the binary never links testing):
//
//	internal/testenv internal/bridge/bridgetest internal/conform/conformtest internal/pgserver/pgtest
//	internal/testsupport/npmreg internal/testsupport/dockerd
//
// Benchmarks and release checks, which nothing imports:
//
//	bench/blocks bench/bridge bench/conform bench/fixtures bench/lint bench/pgserver bench/report bench/shard bench/suites bench/watch bench/world internal/release
//
// Terminal libraries (bubbletea, bubbles, lipgloss, the charmbracelet and
// golang.org/x terminal packages, isatty, termenv, ...) are imported by
// internal/cli, internal/scaffold/wizard and internal/termsetup (which
// keeps them from querying the terminal at start) only. layering_test.go reads
// these lists and checks them against 'go list -deps'.
package cli

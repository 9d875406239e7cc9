// Package blocks embeds the better-supabase SQL blocks that bsadapter checks
// adapters against (supabase-base, access, vault, jobs, pg-net,
// vector-search, ai-files, streams, ai-chat, ai-cache, chat-sdk-state,
// credentials, workflows, workflow-sdk-world, workflow-builder, knowledge,
// memory), lists them with their versions, dependencies and
// functions, and installs them into a PostgreSQL database.
//
// Every block lives in schema better_supabase. Each module is installed in
// its own transaction, in dependency order, and recorded in
// better_supabase.modules, so that installing twice changes nothing and a
// failure leaves the database as it was.
package blocks

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed sql/*.sql
var files embed.FS

// FS returns the embedded SQL files: sql/<module>.sql for each module and
// sql/registry.sql, which runs before each of them.
func FS() fs.FS { return files }

// Module is one embedded SQL module.
type Module struct {
	// Name is the module's upstream name, such as "streams".
	Name string `json:"name"`
	// Version is the module's version as upstream numbers it.
	Version string `json:"version"`
	// Mode is what the registry records: "managed" for a module that
	// follows better-supabase's own SQL, "custom" for a stand-in that
	// implements one of its contracts (the access, vault, jobs and pg-net
	// modules).
	Mode string `json:"mode"`
	// Requires names the modules that must be installed first.
	Requires []string `json:"requires"`
	// Functions lists the public SQL functions the module defines,
	// schema-qualified, in the order the SQL defines them.
	Functions []string `json:"functions"`
	// Extensions names the PostgreSQL extensions the module needs the
	// server to offer (header "-- needs-extension: vector >= 0.8"). Install
	// leaves out a module whose extension the server lacks, and every
	// module that requires it.
	Extensions []Extension `json:"extensions,omitempty"`
	// SQL is the module's SQL, without the registry bookkeeping.
	SQL string `json:"-"`
	// File is where the SQL comes from: sql/<name>.sql for an embedded
	// module, the file's path for one loaded from a folder.
	File string `json:"file,omitempty"`
}

// BaseModule is the module that provides the Supabase pieces (roles, auth
// schema) on a database that is not a Supabase one.
const BaseModule = "supabase-base"

// Set is a set of modules to install: the embedded blocks (Embedded), or
// modules read from a folder (LoadDir).
type Set struct {
	modules  []Module
	registry string
	// source is the folder the modules come from; "" for the embedded
	// blocks.
	source string
}

var (
	embedded *Set
	loadErr  error
)

func init() {
	mods, reg, err := load(files)
	embedded, loadErr = &Set{modules: mods, registry: reg}, err
}

// Embedded returns the blocks bsadapter embeds.
func Embedded() *Set { return embedded }

// IsEmbedded reports whether s is the embedded blocks.
func (s *Set) IsEmbedded() bool { return s == nil || s.source == "" }

// Source says where the modules come from: "embedded", or the folder.
func (s *Set) Source() string {
	if s.IsEmbedded() {
		return "embedded"
	}
	return s.source
}

// Hash names the set by its contents (every module's name, version and
// SQL, and the registry bookkeeping), for caches keyed by what they hold.
func (s *Set) Hash() string {
	h := sha256.New()
	io.WriteString(h, s.registry+"\x00")
	for _, m := range s.modules {
		io.WriteString(h, m.Name+"\x00"+m.Version+"\x00"+m.Mode+"\x00"+m.SQL+"\x00")
	}
	return hex.EncodeToString(h.Sum(nil))
}

var (
	// headerRe finds a header line's text; only a match at the start of
	// a line is one (see headers). Without an anchor the matcher skips
	// from one "-- " to the next.
	headerRe = regexp.MustCompile(`-- (bsadapter block|version|requires|mode|needs-extension):[ \t]*(.*)`)
	// funcRe is matched against the lowered SQL: with a literal prefix the
	// matcher skips to each "create", several times faster than (?i).
	funcRe = regexp.MustCompile(`create\s+(?:or\s+replace\s+)?function\s+"?([a-z_]+)"?\."?([a-z_][a-z0-9_]*)"?\s*\(`)
)

// load reads the modules' headers (name, version, requires) and finds the
// functions each defines, then sorts the modules in dependency order.
func load(fsys fs.FS) ([]Module, string, error) {
	reg, err := fs.ReadFile(fsys, "sql/registry.sql")
	if err != nil {
		return nil, "", fmt.Errorf("blocks: %w", err)
	}
	paths, err := fs.Glob(fsys, "sql/*.sql")
	if err != nil {
		return nil, "", err
	}
	byName := map[string]Module{}
	for _, p := range paths {
		if p == "sql/registry.sql" {
			continue
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, "", err
		}
		m, ok, err := parseHeader(p, string(b))
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", fmt.Errorf("blocks: %s: the header must name the module and its version (-- bsadapter block: NAME, -- version: N)", p)
		}
		if want := "sql/" + m.Name + ".sql"; p != want {
			return nil, "", fmt.Errorf("blocks: %s: module %s must live in %s", p, m.Name, want)
		}
		byName[m.Name] = m
	}
	ordered, err := dependencyOrder(byName)
	return ordered, string(reg), err
}

// publicFunctions lists the functions sql defines, schema-qualified, in
// the order it defines them; helpers (a name starting with _) are not part
// of the contract.
func publicFunctions(sql string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, f := range funcRe.FindAllStringSubmatch(strings.ToLower(sql), -1) {
		name := f[1] + "." + f[2]
		if strings.HasPrefix(f[2], "_") || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

// dependencyOrder sorts modules so that each comes after what it
// requires, ties broken by name so that the order is stable.
func dependencyOrder(byName map[string]Module) ([]Module, error) {
	var names []string
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var ordered []Module
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(n string, from string) error
	visit = func(n, from string) error {
		m, ok := byName[n]
		if !ok {
			return fmt.Errorf("blocks: module %s requires %s, which is not among the modules", from, n)
		}
		switch state[n] {
		case 1:
			return fmt.Errorf("blocks: modules %s and %s require each other", from, n)
		case 2:
			return nil
		}
		state[n] = 1
		for _, r := range m.Requires {
			if err := visit(r, n); err != nil {
				return err
			}
		}
		state[n] = 2
		ordered = append(ordered, m)
		return nil
	}
	for _, n := range names {
		if err := visit(n, n); err != nil {
			return nil, err
		}
	}
	return ordered, nil
}

// List returns every embedded module in dependency order.
func List() []Module { return embedded.List() }

// List returns every module of the set in dependency order.
func (s *Set) List() []Module {
	out := make([]Module, len(s.modules))
	for i, m := range s.modules {
		m.Requires = append([]string{}, m.Requires...)
		m.Functions = append([]string{}, m.Functions...)
		m.Extensions = append([]Extension(nil), m.Extensions...)
		out[i] = m
	}
	return out
}

// Names returns the names of the embedded modules in dependency order.
func Names() []string { return embedded.Names() }

// Names returns the names of the set's modules in dependency order.
func (s *Set) Names() []string {
	var names []string
	for _, m := range s.modules {
		names = append(names, m.Name)
	}
	return names
}

// UnknownModuleError is the error for a module name that is not in the
// set.
type UnknownModuleError struct {
	Name string
	// Known lists the set's modules.
	Known []string
}

// Error names the unknown module and the known ones.
func (e *UnknownModuleError) Error() string {
	known := e.Known
	if known == nil {
		known = Names()
	}
	return fmt.Sprintf("blocks: no module %q (the modules are %s)", e.Name, strings.Join(known, ", "))
}

// Resolve returns the named modules and everything they require, in
// dependency order. No names means every module.
func Resolve(names ...string) ([]Module, error) { return embedded.Resolve(names...) }

// Resolve returns the named modules of the set and everything they
// require, in dependency order. No names means every module.
func (s *Set) Resolve(names ...string) ([]Module, error) {
	if s.IsEmbedded() && loadErr != nil {
		return nil, loadErr
	}
	if len(names) == 0 {
		return s.List(), nil
	}
	byName := map[string]Module{}
	for _, m := range s.modules {
		byName[m.Name] = m
	}
	want := map[string]bool{}
	var add func(string) error
	add = func(n string) error {
		m, ok := byName[n]
		if !ok {
			return &UnknownModuleError{Name: n, Known: s.Names()}
		}
		if want[n] {
			return nil
		}
		want[n] = true
		for _, r := range m.Requires {
			if err := add(r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range names {
		if err := add(n); err != nil {
			return nil, err
		}
	}
	var out []Module
	for _, m := range s.List() {
		if want[m.Name] {
			out = append(out, m)
		}
	}
	return out, nil
}

// SQL returns the SQL that installs the named modules and everything they
// require, in dependency order, one transaction per module, including the
// registry bookkeeping. No names means every module. It is meant for people
// who install with their own migration tool; running it twice is harmless.
func SQL(names ...string) (string, error) { return embedded.SQL(names...) }

// SQL returns the SQL that installs the named modules of the set and
// everything they require, as the package's SQL does for the embedded
// blocks.
func (s *Set) SQL(names ...string) (string, error) {
	mods, err := s.Resolve(names...)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("-- better-supabase blocks for bsadapter: " + strings.Join(moduleNames(mods), ", ") + "\n")
	if !s.IsEmbedded() {
		b.WriteString("-- Modules from " + s.source + ", with the embedded ones they need.\n")
	}
	b.WriteString("-- Each module runs in one transaction, in dependency order; every statement\n")
	b.WriteString("-- leaves what already exists alone, so running this twice is harmless.\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "\n-- ==== module %s, version %s ====\nbegin;\n\n", m.Name, m.Version)
		b.WriteString(strings.TrimSpace(s.registry))
		// As Install does, leave alone a module whose pieces the database
		// has of its own (supabase-base on Supabase, access on a
		// better-supabase project), and refuse to replace a newer
		// version's functions with this version's.
		check, what := providedBy(m.Name)
		newer := ""
		if check != "" && isStandIn(m.Name) {
			newer = fmt.Sprintf("not (%s) and ", strings.ReplaceAll(check, "\n", "\n    "))
		}
		fmt.Fprintf(&b, "\n\ndo $newer$\nbegin\n"+
			"  if %[3]sexists (select from better_supabase.modules where name = '%[1]s' and version > %[2]s) then\n"+
			"    raise exception 'the database has %[1]s version %%, newer than the version %[2]s this SQL installs',\n"+
			"        (select version from better_supabase.modules where name = '%[1]s')\n"+
			"      using hint = 'upgrade bsadapter and print the SQL again';\n"+
			"  end if;\nend\n$newer$;\n\n", m.Name, m.Version, newer)
		record := fmt.Sprintf("insert into better_supabase.modules (name, version, mode) values ('%s', %s, '%s')\n"+
			"on conflict (name) do update set version = excluded.version, mode = excluded.mode, updated_at = now()\n"+
			"where better_supabase.modules.version < excluded.version;", m.Name, m.Version, m.Mode)
		body := strings.TrimSpace(m.SQL) + "\n\n" + record
		switch {
		case isStandIn(m.Name):
			// As Install does: the module's SQL fills in only what the
			// database lacks, and a database with pieces of its own (an
			// access module, a Vault) does not record this one.
			body = strings.TrimSpace(m.SQL) + fmt.Sprintf("\n\n-- Not recorded where the database has %s of its own.\n"+
				"insert into better_supabase.modules (name, version, mode)\nselect '%s', %s, '%s'\nwhere not (%s)\n"+
				"on conflict (name) do update set version = excluded.version, mode = excluded.mode, updated_at = now()\n"+
				"where better_supabase.modules.version < excluded.version;", what, m.Name, m.Version, m.Mode, check)
		case m.Name == BaseModule:
			// On hosted Supabase the migration role does not even own
			// auth.users: the module runs only where its pieces are missing
			// or bsadapter installed them.
			for _, tag := range []string{baseQuote, "$guard$"} {
				if strings.Contains(body, tag) {
					return "", fmt.Errorf("blocks: %s contains %s, which the printed SQL quotes it with", m.File, tag)
				}
			}
			body = fmt.Sprintf("-- Where the database has %s of its own, nothing of this module runs.\n"+
				"do $guard$\nbegin\n  if %s\n    and not exists (select from better_supabase.modules where name = '%s') then\n"+
				"    raise notice 'module %s skipped: the database has %s of its own';\n    return;\n  end if;\n"+
				"  execute %s\n%s\n%s;\nend\n$guard$;",
				what, strings.ReplaceAll(check, "\n", "\n    "), m.Name, m.Name, what, baseQuote, body, baseQuote)
		}
		b.WriteString(extensionGuard(m))
		b.WriteString(body)
		b.WriteString("\n\ncommit;\n")
	}
	return b.String(), nil
}

// AccessModule is the stand-in for better-supabase's tenant, access and
// audit modules (can, tenant_ids_with, audit_event, tenant_entitlements).
const AccessModule = "access"

// VaultModule is the stand-in for Supabase Vault (vault.secrets,
// vault.decrypted_secrets, vault.create_secret, vault.update_secret), for
// the credentials module on a database without one.
const VaultModule = "vault"

// vaultCheck is true in a database whose vault.secrets is not the vault
// module's: a Supabase database, with its own Vault.
const vaultCheck = "pg_catalog.to_regclass('vault.secrets') is not null\n" +
	"and coalesce(pg_catalog.obj_description(pg_catalog.to_regclass('vault.secrets'), 'pg_class'), '') <> 'bsadapter vault stand-in'"

// JobsModule is the stand-in for better-supabase's jobs module
// (enqueue_job, claim_jobs), for the workflow-sdk-world block's deliveries
// on a database without one.
const JobsModule = "jobs"

// jobsCheck is true in a database with enqueue_job or claim_jobs of its
// own: a better-supabase project with the jobs module.
const jobsCheck = "exists (select from (values (pg_catalog.to_regprocedure('better_supabase.enqueue_job(text,jsonb,integer,integer,text,boolean)')),\n" +
	"  (pg_catalog.to_regprocedure('better_supabase.claim_jobs(text,integer,integer)'))) f(p)\n" +
	"  where f.p is not null and coalesce(pg_catalog.obj_description(f.p, 'pg_proc'), '') <> 'bsadapter jobs stand-in')"

// PgNetModule is the stand-in for Supabase's pg_net (net.http_post), which
// records the requests instead of sending them.
const PgNetModule = "pg-net"

// pgNetCheck is true in a database with pg_net of its own.
const pgNetCheck = "exists (select from pg_catalog.pg_extension where extname = 'pg_net')\n" +
	"or (pg_catalog.to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is not null\n" +
	"  and coalesce(pg_catalog.obj_description(pg_catalog.to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)'), 'pg_proc'), '') <> 'bsadapter pg_net stand-in')"

// VectorSearchModule is the stand-in for better-supabase's vector-search
// module: pgvector (0.8 or newer) in schema extensions, for the knowledge
// and memory blocks. It is the one module that needs a server extension.
const VectorSearchModule = "vector-search"

// vectorCheck is true in a database with pgvector of its own (one this
// module did not create).
const vectorCheck = "exists (select from pg_catalog.pg_extension e where e.extname = 'vector'\n" +
	"  and coalesce(pg_catalog.obj_description(e.oid, 'pg_extension'), '') <> 'bsadapter vector-search stand-in: pgvector, created by bsadapter')"

// AIFilesModule is the stand-in for better-supabase's ai-files module (the
// table better_supabase.ai_files), for the knowledge block's attachments.
const AIFilesModule = "ai-files"

// aiFilesCheck is true in a database with an ai_files table of its own.
const aiFilesCheck = "pg_catalog.to_regclass('better_supabase.ai_files') is not null\n" +
	"and coalesce(pg_catalog.obj_description(pg_catalog.to_regclass('better_supabase.ai_files'), 'pg_class'), '') <> 'bsadapter ai-files stand-in'"

// isStandIn says whether module stands in for pieces a database may have
// of its own: its SQL runs everywhere, filling in only what is missing,
// and it is recorded only where the pieces are its own.
func isStandIn(module string) bool {
	return module == AccessModule || module == VaultModule || module == JobsModule || module == PgNetModule ||
		module == VectorSearchModule || module == AIFilesModule
}

// accessCheck is true in a database whose better_supabase.can is not the
// access module's: a better-supabase project with its own access module.
const accessCheck = "pg_catalog.to_regprocedure('better_supabase.can(text,uuid,text)') is not null\n" +
	"and coalesce(pg_catalog.obj_description(pg_catalog.to_regprocedure('better_supabase.can(text,uuid,text)'), 'pg_proc'), '') <> 'bsadapter access stand-in'"

// providedBy returns the check that is true where the database provides
// the module's pieces itself, and what those pieces are called; "" for a
// module that always installs.
func providedBy(module string) (check, what string) {
	switch module {
	case BaseModule:
		return supabaseCheck, "the Supabase roles and auth schema"
	case AccessModule:
		return accessCheck, "an access module"
	case VaultModule:
		return vaultCheck, "a Vault"
	case JobsModule:
		return jobsCheck, "a jobs module"
	case PgNetModule:
		return pgNetCheck, "pg_net"
	case VectorSearchModule:
		return vectorCheck, "pgvector"
	case AIFilesModule:
		return aiFilesCheck, "an ai_files table"
	}
	return "", ""
}

// supabaseCheck is true in a database that has the Supabase pieces
// supabase-base provides.
const supabaseCheck = "(select count(*) from pg_catalog.pg_roles where rolname in ('anon', 'authenticated', 'service_role')) = 3\n" +
	"and pg_catalog.to_regclass('auth.users') is not null\n" +
	"and pg_catalog.to_regprocedure('auth.uid()') is not null"

// baseQuote quotes supabase-base in the printed SQL, where it runs only
// when the database is not a Supabase one.
const baseQuote = "$bsadapter_module$"

func moduleNames(mods []Module) []string {
	var n []string
	for _, m := range mods {
		n = append(n, m.Name)
	}
	return n
}

// Report says what Install did with each module, in the order it handled
// them.
type Report struct {
	Modules []ModuleResult `json:"modules"`
}

// Actions Install reports for a module.
const (
	Installed = "installed" // the module's SQL ran and the module is recorded
	Already   = "already"   // this version (or a newer one) was installed before
	Skipped   = "skipped"   // the database provides it already (supabase-base on Supabase)
	LeftOut   = "left out"  // the server lacks an extension it needs (Reason says which, and how to get it)
)

// ModuleResult is what happened to one module.
type ModuleResult struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Action is Installed, Already or Skipped.
	Action string `json:"action"`
	// Found is the version the database had before, when it had one.
	Found string `json:"found,omitempty"`
	// Reason says why a module was left out: the extension the server
	// lacks (or the module it requires that was left out), and how to get
	// it.
	Reason string `json:"reason,omitempty"`
}

// LeftOut returns the modules Install left out, in the order it handled
// them.
func (r Report) LeftOut() []ModuleResult {
	var out []ModuleResult
	for _, m := range r.Modules {
		if m.Action == LeftOut {
			out = append(out, m)
		}
	}
	return out
}

// Changed reports whether Install changed the database.
func (r Report) Changed() bool {
	for _, m := range r.Modules {
		if m.Action == Installed {
			return true
		}
	}
	return false
}

// InstallError says which module failed to install and why. The module's
// transaction was rolled back; the modules before it stay installed.
type InstallError struct {
	Module string
	// File is the module's SQL file (sql/<module>.sql when embedded).
	File string
	// Line is the line of File the server pointed at, or 0.
	Line int
	Err  error
}

// Error names the module, the place in its file when known, and the cause.
func (e *InstallError) Error() string {
	where := e.Module
	if e.Line > 0 {
		file := e.File
		if file == "" {
			file = "sql/" + e.Module + ".sql"
		}
		where = fmt.Sprintf("%s (%s line %d)", e.Module, file, e.Line)
	}
	msg := fmt.Sprintf("blocks: install %s: %v", where, e.Err)
	var pgErr *pgconn.PgError
	if errors.As(e.Err, &pgErr) && pgErr.Code == "42501" {
		msg += " (the role lacks a right the module needs: install as a superuser, or as a role that owns the database and may create roles)"
	}
	return msg
}

// Unwrap returns the cause, a *pgconn.PgError when the server refused.
func (e *InstallError) Unwrap() error { return e.Err }

// lockKey serialises concurrent installs into one database (a transaction
// advisory lock): two bsadapter runs may share a server.
const lockKey = 0x6273_6164_6170_7472 // "bsadaptr"

// progressKey is the context key of WithProgress's report.
type progressKey struct{}

// WithProgress returns a context in which Install calls report with each
// module before it installs it (or finds it installed), so that a caller
// can say which module a slow install is in.
func WithProgress(ctx context.Context, report func(Module)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// Install installs the named modules (none means all) and their
// dependencies into the database conn is connected to. A module already
// installed at its version is left alone; supabase-base is skipped where
// the database already has Supabase's roles, auth schema and auth.uid().
func Install(ctx context.Context, conn *pgx.Conn, names ...string) (Report, error) {
	return embedded.Install(ctx, conn, names...)
}

// Install installs the named modules of the set (none means all) and
// their dependencies, as the package's Install does for the embedded
// blocks.
func (s *Set) Install(ctx context.Context, conn *pgx.Conn, names ...string) (Report, error) {
	mods, err := s.Resolve(names...)
	if err != nil {
		return Report{}, err
	}
	var rep Report
	report, _ := ctx.Value(progressKey{}).(func(Module))
	leftOut := map[string]bool{}
	for _, m := range mods {
		if report != nil {
			report(m)
		}
		reason, err := leaveOut(ctx, conn, m, leftOut)
		if err != nil {
			return rep, &InstallError{Module: m.Name, File: m.File, Err: err}
		}
		if reason != "" {
			leftOut[m.Name] = true
			rep.Modules = append(rep.Modules, ModuleResult{Name: m.Name, Version: m.Version, Action: LeftOut, Reason: reason})
			continue
		}
		res, err := installOne(ctx, conn, s.registry, m)
		if err != nil {
			return rep, &InstallError{Module: m.Name, File: m.File, Line: errorLine(m.SQL, err), Err: err}
		}
		rep.Modules = append(rep.Modules, res)
	}
	return rep, nil
}

func installOne(ctx context.Context, conn *pgx.Conn, registry string, m Module) (ModuleResult, error) {
	res := ModuleResult{Name: m.Name, Version: m.Version}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return res, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "select pg_advisory_xact_lock($1)", int64(lockKey)); err != nil {
		return res, err
	}
	var found *int
	var hasRegistry bool
	if err := tx.QueryRow(ctx, "select pg_catalog.to_regclass('better_supabase.modules') is not null").Scan(&hasRegistry); err != nil {
		return res, err
	}
	if hasRegistry {
		err := tx.QueryRow(ctx, `select m.version from better_supabase.modules m where m.name = $1`, m.Name).Scan(&found)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return res, err
		}
	}
	want, _ := strconv.Atoi(m.Version)
	if isStandIn(m.Name) {
		check, _ := providedBy(m.Name)
		var provided bool
		if err := tx.QueryRow(ctx, "select "+check).Scan(&provided); err != nil {
			return res, err
		}
		if provided {
			// A better-supabase project, a Supabase database: its own
			// access module or Vault decides, whatever its registry says.
			// The module's SQL only fills in what the database lacks (it
			// replaces none of the database's), and nothing is recorded.
			if _, err := tx.Exec(ctx, registry); err != nil {
				return res, fmt.Errorf("registry: %w", err)
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return res, &sqlError{err}
			}
			res.Action = Skipped
			return res, tx.Commit(ctx)
		}
	}
	if found != nil {
		res.Found = strconv.Itoa(*found)
		if *found > want {
			return res, fmt.Errorf("the database has %s version %d, newer than the version %d this bsadapter embeds (upgrade bsadapter)", m.Name, *found, want)
		}
		if *found == want {
			res.Action = Already
			return res, tx.Commit(ctx)
		}
	}
	if m.Name == BaseModule && found == nil {
		var supabase bool
		err := tx.QueryRow(ctx, "select "+supabaseCheck).Scan(&supabase)
		if err != nil {
			return res, err
		}
		if supabase {
			// A Supabase database: its own pieces stay; nothing is recorded,
			// so the registry keeps saying what bsadapter installed.
			res.Action = Skipped
			return res, tx.Commit(ctx)
		}
	}
	if _, err := tx.Exec(ctx, registry); err != nil {
		return res, fmt.Errorf("registry: %w", err)
	}
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return res, &sqlError{err}
	}
	if _, err := tx.Exec(ctx, `insert into better_supabase.modules (name, version, mode) values ($1, $2, $3)
		on conflict (name) do update set version = excluded.version, mode = excluded.mode, updated_at = now()`, m.Name, want, m.Mode); err != nil {
		return res, err
	}
	if err := tx.Commit(ctx); err != nil {
		return res, err
	}
	res.Action = Installed
	return res, nil
}

// sqlError marks an error raised by the module's own SQL, whose position
// points into the module's file.
type sqlError struct{ err error }

func (e *sqlError) Error() string { return e.err.Error() }
func (e *sqlError) Unwrap() error { return e.err }

// errorLine turns the server's error position (characters from the start
// of the statement text sent) into a line of the module's file.
func errorLine(sql string, err error) int {
	var se *sqlError
	var pgErr *pgconn.PgError
	if !errors.As(err, &se) || !errors.As(err, &pgErr) || pgErr.Position <= 0 {
		return 0
	}
	line, n := 1, 0
	for _, r := range sql {
		n++
		if int32(n) >= pgErr.Position {
			return line
		}
		if r == '\n' {
			line++
		}
	}
	return 0
}

// LoadError reports a broken embedded module (a build problem, caught by
// the package's tests).
func LoadError() error { return loadErr }

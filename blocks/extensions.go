package blocks

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Extension is a PostgreSQL extension a module needs the server to offer,
// at a least version when Min is set.
type Extension struct {
	Name string `json:"name"`
	// Min is the least version, such as "0.8"; "" takes any.
	Min string `json:"min,omitempty"`
}

// String is the extension as the header gives it: "vector >= 0.8".
func (e Extension) String() string {
	if e.Min == "" {
		return e.Name
	}
	return e.Name + " >= " + e.Min
}

var extensionRe = regexp.MustCompile(`^([a-z_][a-z0-9_-]*)(?:\s*>=\s*([0-9]+(?:\.[0-9]+)*))?$`)

// parseExtensions reads the value of a needs-extension header: names,
// each with an optional least version, separated by commas.
func parseExtensions(v string) ([]Extension, error) {
	var out []Extension
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		m := extensionRe.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("needs-extension %q: give an extension's name, optionally with a least version (-- needs-extension: vector >= 0.8)", part)
		}
		out = append(out, Extension{Name: m[1], Min: m[2]})
	}
	return out, nil
}

// versionAtLeast compares dotted version numbers ("0.8.0" >= "0.8"); a
// version with anything but digits and dots (a development build, "1.2dev")
// counts by its leading numbers.
func versionAtLeast(have, min string) bool {
	num := func(s string) []int {
		var out []int
		for _, p := range strings.Split(s, ".") {
			digits := p
			if i := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
				digits = p[:i]
			}
			n, _ := strconv.Atoi(digits)
			out = append(out, n)
			if digits != p {
				break
			}
		}
		return out
	}
	h, m := num(have), num(min)
	for i := 0; i < len(m); i++ {
		x := 0
		if i < len(h) {
			x = h[i]
		}
		if x != m[i] {
			return x > m[i]
		}
	}
	return true
}

// ExtensionHelp says how to get a server that offers the extension.
func ExtensionHelp(e Extension) string {
	if e.Name == "vector" {
		return "to get it, use a server with pgvector" + minText(e) + ": --dsn with one that has it (Supabase has it), " +
			"--pg docker --pg-image pgvector/pgvector:0.8.0-pg15 (the official postgres image with pgvector; the default image lacks it), " +
			"or this machine's PostgreSQL with pgvector installed " +
			"(Debian 13 and Ubuntu: apt-get install postgresql-NN-pgvector; macOS: brew install pgvector; " +
			"Debian 12: scripts/pgvector.sh in bsadapter's repository builds it from Debian's source package)"
	}
	return "to get it, use a server that offers the extension " + e.Name + minText(e) + " (--dsn with one that has it, or install it for this machine's PostgreSQL)"
}

func minText(e Extension) string {
	if e.Min == "" {
		return ""
	}
	return " " + e.Min + " or newer"
}

// leaveOut says why module m cannot be installed on the server conn is
// connected to: a module it requires was left out, or the server lacks an
// extension it needs (or has it at an older version). "" means it can be.
func leaveOut(ctx context.Context, conn *pgx.Conn, m Module, leftOut map[string]bool) (string, error) {
	for _, r := range m.Requires {
		if leftOut[r] {
			return fmt.Sprintf("it requires module %s, which was left out", r), nil
		}
	}
	for _, e := range m.Extensions {
		var installed, available *string
		err := conn.QueryRow(ctx, `select e.extversion, a.default_version
			from (select 1) one
			left join pg_catalog.pg_extension e on e.extname = $1
			left join pg_catalog.pg_available_extensions a on a.name = $1`, e.Name).Scan(&installed, &available)
		if err != nil {
			return "", fmt.Errorf("look for extension %s: %w", e.Name, err)
		}
		have := available
		if installed != nil {
			// The database's own, whatever version the server's files offer.
			have = installed
		}
		switch {
		case have == nil:
			return fmt.Sprintf("the server lacks extension %s; %s", e.Name, ExtensionHelp(e)), nil
		case e.Min != "" && !versionAtLeast(*have, e.Min):
			return fmt.Sprintf("the server has extension %s %s, older than the %s the module needs; %s", e.Name, *have, e.Min, ExtensionHelp(e)), nil
		case installed == nil:
			// Offered but not created: only a superuser may create an
			// extension that is not marked trusted (pgvector is not).
			var role string
			var super, trusted bool
			err := conn.QueryRow(ctx, `select current_user::text,
				coalesce((select rolsuper from pg_catalog.pg_roles where rolname = current_user), false),
				coalesce((select v.trusted from pg_catalog.pg_available_extension_versions v
					join pg_catalog.pg_available_extensions a on a.name = v.name and a.default_version = v.version
					where v.name = $1), false)`, e.Name).Scan(&role, &super, &trusted)
			if err != nil {
				return "", fmt.Errorf("look for the right to create extension %s: %w", e.Name, err)
			}
			if !super && !trusted {
				return fmt.Sprintf("the server offers extension %s, but role %s may not create it (only a superuser may create an untrusted extension); "+
					"create it once as a superuser (create schema if not exists extensions; create extension %s schema extensions), or install as a superuser", e.Name, role, e.Name), nil
			}
		}
	}
	return "", nil
}

// extensionGuard is the printed SQL's check, before a module that needs
// extensions: it stops the script with the reason and the way to get them.
func extensionGuard(m Module) string {
	if len(m.Extensions) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("do $needs$\ndeclare\n  have text;\nbegin\n")
	for _, e := range m.Extensions {
		fmt.Fprintf(&b, "  select coalesce((select extversion from pg_catalog.pg_extension where extname = %[1]s),\n"+
			"                  (select default_version from pg_catalog.pg_available_extensions where name = %[1]s)) into have;\n", quoteSQL(e.Name))
		cond := "have is null"
		if e.Min != "" {
			cond += fmt.Sprintf(" or pg_catalog.string_to_array(pg_catalog.substring(have, '^[0-9.]*[0-9]'), '.')::int[] < pg_catalog.string_to_array(%s, '.')::int[]", quoteSQL(e.Min))
		}
		fmt.Fprintf(&b, "  if %s then\n    raise exception 'module %s needs extension %s; the server has %%', coalesce(have, 'none')\n      using hint = %s;\n  end if;\n",
			cond, m.Name, strings.ReplaceAll(e.String(), "'", "''"), quoteSQL(ExtensionHelp(e)))
	}
	b.WriteString("end\n$needs$;\n\n")
	return b.String()
}

func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// LeftOut returns the modules of the set that the database conn is
// connected to lacks because the server lacks what they need (or they
// require such a module), each with the reason and the way to get it, in
// dependency order: what Install left out there, found again from the
// database (a cached template database was prepared by an earlier run).
func (s *Set) LeftOut(ctx context.Context, conn *pgx.Conn) ([]ModuleResult, error) {
	recorded := map[string]bool{}
	var hasRegistry bool
	if err := conn.QueryRow(ctx, "select pg_catalog.to_regclass('better_supabase.modules') is not null").Scan(&hasRegistry); err != nil {
		return nil, err
	}
	if hasRegistry {
		rows, err := conn.Query(ctx, "select name from better_supabase.modules")
		if err != nil {
			return nil, err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			recorded[n] = true
		}
	}
	var out []ModuleResult
	leftOut := map[string]bool{}
	for _, m := range s.List() {
		if recorded[m.Name] {
			continue
		}
		reason, err := leaveOut(ctx, conn, m, leftOut)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			leftOut[m.Name] = true
			out = append(out, ModuleResult{Name: m.Name, Version: m.Version, Action: LeftOut, Reason: reason})
		}
	}
	return out, nil
}

#!/usr/bin/env bash
# Builds pgvector from Debian's source package and installs it into a
# PostgreSQL installation, for the knowledge and memory blocks (which need
# pgvector 0.8 or newer, for hnsw.iterative_scan). Debian 12 ships no
# postgresql-15-pgvector, so the source comes from Debian 13 (trixie):
#
#   scripts/pgvector.sh [--destdir DIR] [PG_CONFIG]
#
# PG_CONFIG is the installation's pg_config (default: the one on PATH).
# --destdir stages the files under DIR instead of installing them (make's
# DESTDIR), to try the build without touching the installation.
#
# Nothing is downloaded from outside Debian's archive, and the system's apt
# configuration stays as it is: the source list, the package lists and the
# caches are private to a temporary folder, removed afterwards. apt checks
# the source package's files against the signed archive index; this script
# checks their SHA-256 sums once more against what apt printed, and the
# version (at least 0.8). The server's headers come from the
# postgresql-server-dev package of the server's own version, unpacked into
# the temporary folder, not installed. Needs root (apt-get), make and a C
# compiler; prints each step on stderr.
set -euo pipefail

say() { printf 'scripts/pgvector: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

destdir=
while [ $# -gt 0 ]; do
  case "$1" in
    --destdir) destdir=${2:?--destdir needs a folder}; shift 2 ;;
    --destdir=*) destdir=${1#--destdir=}; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
pg_config=${1:-$(command -v pg_config || true)}
[ -n "$pg_config" ] && [ -x "$pg_config" ] || die "no pg_config: give the server's, e.g. scripts/pgvector.sh /usr/lib/postgresql/15/bin/pg_config"
command -v apt-get >/dev/null || die "apt-get is missing: this build takes Debian's source package"
command -v make >/dev/null || die "make is missing (apt-get install make)"
command -v cc >/dev/null || die "a C compiler is missing (apt-get install gcc libc6-dev)"
if [ -n "$destdir" ]; then
  mkdir -p "$destdir"
  destdir=$(cd "$destdir" && pwd)
fi

# PostgreSQL 15.18 (Debian 15.18-0+deb12u1) -> 15.
pg_version=$("$pg_config" --version)
major=$(printf '%s\n' "$pg_version" | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p')
[ -n "$major" ] || die "$pg_config --version says '$pg_version', not a PostgreSQL version"
pgxs=$("$pg_config" --pgxs)
[ -f "$pgxs" ] || die "$pg_config names $pgxs, which is missing (Debian: postgresql-client-$major has it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bsadapter-pgvector.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src" "$tmp/dev"
echo "deb-src http://deb.debian.org/debian trixie main" > "$tmp/sources.list"
private_apt=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o "APT::Sandbox::User=root")

start=$(date +%s)
say "apt-get update (a private list of Debian trixie's sources)"
apt-get -qq "${private_apt[@]}" update >&2

# What apt will fetch, with the SHA-256 sums from the signed index:
# 'URI' NAME SIZE SHA256:HEX per file.
uris=$(cd "$tmp/src" && apt-get -qq "${private_apt[@]}" --print-uris source pgvector)
dsc_name=$(printf '%s\n' "$uris" | awk '$2 ~ /\.dsc$/ {print $2}')
[ -n "$dsc_name" ] || die "Debian trixie has no pgvector source package (apt-get --print-uris source pgvector printed: $uris)"
say "apt-get source --download-only pgvector ($dsc_name)"
(cd "$tmp/src" && apt-get -qq "${private_apt[@]}" source --download-only pgvector >&2)
while read -r _ name _ sum; do
  want=${sum#SHA256:}
  [ "$want" != "$sum" ] || die "apt printed no SHA-256 for $name ($sum)"
  got=$(sha256sum "$tmp/src/$name" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "$name: SHA-256 $got, the signed index says $want"
done <<< "$uris"
say "SHA-256 of the source files checked: $(printf '%s\n' "$uris" | awk '{print $2}' | tr '\n' ' ')"

version=$(sed -n 's/^Version: \([0-9][0-9.]*\).*/\1/p' "$tmp/src/$dsc_name" | head -1)
[ -n "$version" ] || die "$dsc_name names no version"
vmajor=${version%%.*}
vminor=$(printf '%s' "$version" | cut -d. -f2)
if [ "$vmajor" -eq 0 ] && [ "${vminor:-0}" -lt 8 ]; then
  die "pgvector $version in Debian trixie; the knowledge and memory blocks need 0.8 or newer"
fi
orig=$(ls "$tmp/src"/pgvector_*.orig.tar.* 2>/dev/null | head -1)
[ -n "$orig" ] || die "the source package has no orig tarball"
tar -xf "$orig" -C "$tmp/src"
srcdir=$(find "$tmp/src" -mindepth 2 -maxdepth 2 -name Makefile -printf '%h\n' | head -1)
[ -n "$srcdir" ] || die "no Makefile in $(basename "$orig")"

# The server's headers: postgresql-server-dev-N of the installed server's
# Debian version when apt knows it, else apt's candidate.
deb_version=$(printf '%s\n' "$pg_version" | sed -n 's/.*(Debian \([^)]*\)).*/\1/p')
say "apt-get download postgresql-server-dev-$major${deb_version:+=$deb_version}"
if ! (cd "$tmp/dev" && apt-get -qq -o APT::Sandbox::User=root download "postgresql-server-dev-$major${deb_version:+=$deb_version}" >/dev/null 2>&1); then
  [ -n "$deb_version" ] && say "version $deb_version is not in the package lists; taking apt's candidate"
  (cd "$tmp/dev" && apt-get -qq -o APT::Sandbox::User=root download "postgresql-server-dev-$major" >&2)
fi
dpkg-deb -x "$tmp/dev"/postgresql-server-dev-"$major"_*.deb "$tmp/dev/root"
incdir="$tmp/dev/root$("$pg_config" --includedir-server)"
[ -f "$incdir/postgres.h" ] || die "postgresql-server-dev-$major has no postgres.h under $("$pg_config" --includedir-server)"

make_args=(-C "$srcdir" with_llvm=no OPTFLAGS="" PG_CONFIG="$pg_config" includedir_server="$incdir")
say "make pgvector $version for PostgreSQL $major ($pg_config), after $(( $(date +%s) - start )) s of fetching"
built=$(date +%s)
make -s "${make_args[@]}" >&2
say "compiled in $(( $(date +%s) - built )) s"
say "make install${destdir:+ DESTDIR=$destdir}"
# HEADERS= : pgvector's C headers are for other extensions' builds, and
# the headers' folder here is the temporary one.
make -s "${make_args[@]}" HEADERS= ${destdir:+DESTDIR="$destdir"} install >&2
say "pgvector $version built and installed in $(( $(date +%s) - start )) s"

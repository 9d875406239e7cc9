#!/bin/sh
# Install bsadapter from a release: pick the archive for this machine,
# check it against the release's checksums.txt, and put the binary in a
# folder on your PATH.
#
#   curl -fsSL https://github.com/bsadapter/bsadapter/releases/latest/download/install.sh | sh
#   curl -fsSL https://github.com/bsadapter/bsadapter/releases/latest/download/install.sh | sh -s -- --version v0.2.0 --bin-dir ~/bin
#
# Options (or the environment variables in brackets):
#   --version TAG   release to install, e.g. v0.2.0  [BSADAPTER_VERSION]
#                   (default: the latest release)
#   --bin-dir DIR   folder to install into             [BSADAPTER_INSTALL_DIR]
#                   (default: /usr/local/bin when writable, else ~/.local/bin)
# Other variables:
#   BSADAPTER_INSTALL_BASE_URL  the folder holding the archives and
#                   checksums.txt (default: the GitHub release of --version)
#   BSADAPTER_INSTALL_UNAME_S, BSADAPTER_INSTALL_UNAME_M  used instead of
#                   `uname -s` and `uname -m` (for testing this script)
#
# Nothing is installed unless the archive was downloaded, matched its
# checksum and its binary ran; a failed run leaves an existing
# installation as it was and removes its temporary folder.

set -eu

repo="bsadapter/bsadapter"

say() { printf 'bsadapter install: %s\n' "$*" >&2; }
# fail reports an error with hint lines and exits 1; a usage error
# (a bad option) exits 2, as bsadapter itself does.
fail() {
	printf 'bsadapter install: error: %s\n' "$1" >&2
	shift
	for line in "$@"; do printf '  %s\n' "$line" >&2; done
	printf '  nothing was installed\n' >&2
	exit "${fail_code:-1}"
}
usage_fail() {
	fail_code=2
	fail "$@"
}

usage() {
	cat <<'EOF'
Install bsadapter from a GitHub release, checked against checksums.txt.

usage: install.sh [--version TAG] [--bin-dir DIR]
       curl -fsSL https://github.com/bsadapter/bsadapter/releases/latest/download/install.sh | sh -s -- [options]

  --version TAG   release to install, e.g. v0.2.0 (default: the latest)   [BSADAPTER_VERSION]
  --bin-dir DIR   folder to install into (default: /usr/local/bin when
                  writable, else ~/.local/bin)                            [BSADAPTER_INSTALL_DIR]

BSADAPTER_INSTALL_BASE_URL overrides where the archives and checksums.txt
are downloaded from (a mirror, or a local test server).
EOF
}

version="${BSADAPTER_VERSION:-}"
bin_dir="${BSADAPTER_INSTALL_DIR:-}"
while [ $# -gt 0 ]; do
	case "$1" in
	--version | -v)
		[ $# -ge 2 ] || usage_fail "$1 needs a value, e.g. $1 v0.2.0"
		version="$2"
		shift 2
		;;
	--version=*) version="${1#*=}"; shift ;;
	--bin-dir | -b)
		[ $# -ge 2 ] || usage_fail "$1 needs a folder, e.g. $1 \"\$HOME/.local/bin\""
		bin_dir="$2"
		shift 2
		;;
	--bin-dir=*) bin_dir="${1#*=}"; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_fail "unknown option '$1'" "options: --version TAG, --bin-dir DIR; see: sh install.sh --help" ;;
	esac
done

# --- platform ------------------------------------------------------------

uname_s="${BSADAPTER_INSTALL_UNAME_S:-$(uname -s)}"
uname_m="${BSADAPTER_INSTALL_UNAME_M:-$(uname -m)}"

case "$uname_s" in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows_NT)
	fail "this script does not install on Windows ($uname_s)" \
		"download bsadapter_windows_<arch>.zip from https://github.com/$repo/releases" \
		"or run: go install github.com/$repo/cmd/bsadapter@latest"
	;;
*)
	fail "unsupported operating system '$uname_s': release binaries exist for Linux, macOS and Windows" \
		"build from source instead: go install github.com/$repo/cmd/bsadapter@latest"
	;;
esac

case "$uname_m" in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64 | armv8*) arch=arm64 ;;
*)
	fail "unsupported architecture '$uname_m': release binaries exist for amd64 (x86_64) and arm64 (aarch64)" \
		"build from source instead: go install github.com/$repo/cmd/bsadapter@latest"
	;;
esac

archive="bsadapter_${os}_${arch}.tar.gz"

if [ -n "${BSADAPTER_INSTALL_BASE_URL:-}" ]; then
	base_url="${BSADAPTER_INSTALL_BASE_URL%/}"
elif [ -n "$version" ]; then
	case "$version" in v*) ;; *) version="v$version" ;; esac
	base_url="https://github.com/$repo/releases/download/$version"
else
	base_url="https://github.com/$repo/releases/latest/download"
fi

# --- tools ---------------------------------------------------------------

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 2 -o "$2" "$1" 2>"$tmp/fetch.err"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -nv -O "$2" "$1" 2>"$tmp/fetch.err"; }
else
	fail "neither curl nor wget is installed" "install one of them and run this script again"
fi

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
elif command -v openssl >/dev/null 2>&1; then
	sha256() { openssl dgst -sha256 "$1" | sed 's/.*= *//'; }
else
	fail "no SHA-256 tool found (sha256sum, shasum or openssl)" "install coreutils and run this script again"
fi

command -v tar >/dev/null 2>&1 || fail "tar is not installed" "install tar and run this script again"

# --- download and verify -------------------------------------------------

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t bsadapter-install)"
staged=""
cleanup() {
	rm -rf "$tmp"
	if [ -n "$staged" ]; then rm -f "$staged"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

download() {
	if ! fetch "$1" "$2"; then
		why="$(tail -n 1 "$tmp/fetch.err" 2>/dev/null || true)"
		fail "cannot download $1${why:+ ($why)}" "$3"
	fi
}

say "downloading $archive for $os/$arch from $base_url"
download "$base_url/checksums.txt" "$tmp/checksums.txt" \
	"check the version (${version:-latest}) at https://github.com/$repo/releases, or BSADAPTER_INSTALL_BASE_URL"
download "$base_url/$archive" "$tmp/$archive" \
	"the release has no build for $os/$arch; see https://github.com/$repo/releases"

# checksums.txt lines are "<sha256>  <file name>" (GoReleaser's format).
want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")"
[ -n "$want" ] || fail "checksums.txt at $base_url has no line for $archive" \
	"the release is incomplete; report it at https://github.com/$repo/issues"
got="$(sha256 "$tmp/$archive")"
if [ "$want" != "$got" ]; then
	fail "checksum mismatch for $archive" \
		"checksums.txt says $want" \
		"the download is    $got" \
		"the download is corrupt or was altered; try again, and report it if it persists"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" bsadapter 2>"$tmp/tar.err" ||
	fail "cannot unpack bsadapter from $archive: $(tail -n 1 "$tmp/tar.err")" \
		"the archive matched its checksum but is not a bsadapter release archive"
chmod 755 "$tmp/x/bsadapter"
if ! reported="$("$tmp/x/bsadapter" version 2>&1)"; then
	fail "the downloaded bsadapter does not run on this machine: $reported" \
		"check that $os/$arch is right for this machine (uname -s: $uname_s, uname -m: $uname_m)"
fi

# --- install -------------------------------------------------------------

if [ -z "$bin_dir" ]; then
	if [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
		bin_dir=/usr/local/bin
	else
		bin_dir="${HOME:?HOME is not set; pass --bin-dir}/.local/bin"
	fi
fi
mkdir -p "$bin_dir" 2>/dev/null || fail "cannot create $bin_dir" "pass --bin-dir with a folder you can write to"
[ -w "$bin_dir" ] || fail "$bin_dir is not writable" \
	"run with sudo, or pass --bin-dir \"\$HOME/.local/bin\""

# Stage beside the target and rename: the replacement is atomic, and an
# interrupted copy never leaves a half-written bsadapter behind.
staged="$bin_dir/.bsadapter.install.$$"
cp "$tmp/x/bsadapter" "$staged" || fail "cannot write to $bin_dir"
chmod 755 "$staged"
mv -f "$staged" "$bin_dir/bsadapter" || fail "cannot replace $bin_dir/bsadapter"
staged=""

printf 'installed %s\n' "$("$bin_dir/bsadapter" version)"
printf '       at %s\n' "$bin_dir/bsadapter"
case ":${PATH:-}:" in
*":$bin_dir:"*) ;;
*) say "note: $bin_dir is not on your PATH; add it with: export PATH=\"$bin_dir:\$PATH\"" ;;
esac

# lib.sh - helpers for the CLI tests (sourced).  $KTUNE is the binary.
set -eu
: "${KTUNE:?set KTUNE to the ktune binary}"
TMP=$(mktemp -d /tmp/ktune-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export KTUNE_CACHE_TEST="$TMP/cache"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok   $*"; }

# status_of CMD...: run CMD (redirections included) with set -e off; its
# exit status is left in $rc.
status_of() {
    set +e
    "$@"
    rc=$?
    set -e
}

# expect_fail CODE PATTERN CMD...: CMD must exit with CODE and print PATTERN
# (an extended regexp) on stderr as exactly one line.
expect_fail() {
    code=$1; pattern=$2; shift 2
    status_of "$@" >"$TMP/out" 2>"$TMP/err"
    [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, wanted $code: $(cat "$TMP/err")"
    grep -Eq "$pattern" "$TMP/err" || fail "'$*' said '$(cat "$TMP/err")', wanted /$pattern/"
}

# json_get FILE KEY: a top-level integer from ktune's --json output.
json_get() {
    sed -n "s/^  \"$2\": \\([0-9]*\\),*$/\\1/p" "$1"
}

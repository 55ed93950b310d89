# ci.sh - CI runs exactly the README's test command: the set-up line of
# README.md that runs `make ... check` is the command .ci/run ends with.
. "$(dirname "$0")/../cli/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
readme=$(sed -n 's/^\(make [a-z ]*check\)  *#.*/\1/p' "$ROOT/README.md")
ci=$(tail -n 1 "$ROOT/.ci/run")
[ -n "$readme" ] || fail "README.md shows no 'make ... check' command"
[ "$readme" = "$ci" ] || fail ".ci/run runs '$ci', the README says '$readme'"
pass "CI runs the README's test command ($ci)"

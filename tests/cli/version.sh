# version.sh - `ktune --version` names ktune's version and the libraries it
# runs with, as text and as JSON (a bug report wants both).
. "$(dirname "$0")/lib.sh"

"$KTUNE" --version >"$TMP/v.txt"
head -n 1 "$TMP/v.txt" | grep -Eqx 'ktune [0-9]+\.[0-9]+\.[0-9]+' || fail "first line: $(head -n 1 "$TMP/v.txt")"
for lib in SQLite json-c XGBoost OpenBLAS; do
    grep -Eqx "$lib [0-9]+(\.[0-9]+)+" "$TMP/v.txt" || fail "no $lib version in: $(cat "$TMP/v.txt")"
done
pass "--version names ktune, SQLite, json-c, XGBoost and OpenBLAS"

"$KTUNE" --version --json >"$TMP/v.json"
python3 - "$TMP/v.json" <<'PY' || fail "--version --json: $(cat "$TMP/v.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["version"].count(".") == 2
assert set(doc["libraries"]) == {"SQLite", "json-c", "XGBoost", "OpenBLAS"}, doc
PY
pass "--version --json has the libraries"

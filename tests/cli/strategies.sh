# strategies.sh - every search strategy tunes the real CPU SGEMM (a tiny,
# odd shape) through `ktune tune --strategy NAME`: it measures exactly its
# budget, every configuration verifies, and a rerun with the same seed
# proposes the same configurations, so the database answers all of them.
# model_guided gets a budget past its random start, so its model proposes.
. "$(dirname "$0")/lib.sh"
SPEC=kernels/gemm/gemm-c.json

for sb in local_search:6 annealing:6 genetic:6 diff_evo:6 pso:6 model_guided:14 ensemble:8; do
    s=${sb%:*} b=${sb#*:}
    run() {
        "$KTUNE" tune "$SPEC" --problem M=40,N=33,K=50 --strategy "$s" --budget "$b" \
            --seed 3 --db "$TMP/$s.db" --cache "$TMP/cache" --json >"$1"
    }
    run "$TMP/$s.1.json"
    [ "$(json_get "$TMP/$s.1.json" measured)" = "$b" ] || fail "$s: $(cat "$TMP/$s.1.json")"
    [ "$(sed -n 's/^    "ok": \([0-9]*\),*$/\1/p' "$TMP/$s.1.json")" = "$b" ] ||
        fail "$s: not every configuration verified: $(cat "$TMP/$s.1.json")"
    run "$TMP/$s.2.json"
    [ "$(json_get "$TMP/$s.2.json" measured)" = 0 ] ||
        fail "$s: the rerun with the same seed measured again"
    pass "$s: $b configurations of the SGEMM measured; the rerun repeats them"
done

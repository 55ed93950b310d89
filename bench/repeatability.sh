#!/bin/sh
# repeatability.sh - two exhaustive recordings of the same shapes, compared
# (docs/SEARCH.md): for each shape, the first recording's optimum timed in
# the second (as a fraction of the second's optimum) and the other way
# round, the rank correlation (Spearman) of all configurations, and the
# median change of the first recording's ten fastest.
#
#   bench/repeatability.sh [FIRST.csv.bz2 SECOND.csv.bz2]
#       (default: bench/data/gemm-cpu-bench-h100host.csv.bz2 and
#        bench/data/gemm-cpu-bench-h100host-again.csv.bz2)
set -eu
KTUNE=${KTUNE:-build/ktune}
A=${1:-bench/data/gemm-cpu-bench-h100host.csv.bz2}
B=${2:-bench/data/gemm-cpu-bench-h100host-again.csv.bz2}
make -s "$KTUNE" >/dev/null
tmp=$(mktemp -d /tmp/ktune-repeat.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bzcat "$A" >"$tmp/a.csv"
bzcat "$B" >"$tmp/b.csv"
"$KTUNE" import csv "$tmp/a.csv" --db "$tmp/a.db" >/dev/null
"$KTUNE" import csv "$tmp/b.csv" --db "$tmp/b.db" >/dev/null
echo "| space | first's optimum, timed in the second | second's optimum, timed in the first | rank correlation (Spearman) | median change of the first's ten fastest |"
echo "| --- | --- | --- | --- | --- |"
sqlite3 -separator ' | ' "$tmp/a.db" "ATTACH '$tmp/b.db' AS b;
WITH a AS (SELECT p.key AS problem, m.config, m.time_ms AS t FROM main.measurement m
             JOIN main.problem p ON p.id = m.problem_id WHERE m.status = 'ok'),
     bb AS (SELECT p.key AS problem, m.config, m.time_ms AS t FROM b.measurement m
             JOIN b.problem p ON p.id = m.problem_id WHERE m.status = 'ok'),
     j AS (SELECT a.problem, a.config, a.t AS ta, bb.t AS tb FROM a JOIN bb
             ON a.problem = bb.problem AND a.config = bb.config),
     r AS (SELECT *, rank() OVER (PARTITION BY problem ORDER BY ta) AS ra,
                     rank() OVER (PARTITION BY problem ORDER BY tb) AS rb,
                     count(*) OVER (PARTITION BY problem) AS n FROM j)
SELECT '| ' || problem,
       printf('%.3f', min(tb) / max(CASE WHEN ra = 1 THEN tb END)),
       printf('%.3f', min(ta) / max(CASE WHEN rb = 1 THEN ta END)),
       printf('%.2f', 1 - 6.0 * sum((ra - rb) * (ra - rb)) / (n * (n * n - 1.0))),
       (SELECT printf('%.0f%%', 100 * abs(x.tb / x.ta - 1)) FROM r AS x
          WHERE x.problem = r.problem AND x.ra <= 10
          ORDER BY abs(x.tb / x.ta - 1) LIMIT 1 OFFSET 5) || ' |'
FROM r GROUP BY problem ORDER BY problem;"

# data.sh - the installed ktune finds the data it installs (the MIOpen
# solvers' spaces in PREFIX/share/ktune/kernels/miopen) from any folder:
# `import miopen` checks rows against them, `evaluate` and `predict` search
# within them, with no --specs or --spec and no kernels/ in the current
# folder.  Run by `make test-pkg`.
. "$(dirname "$0")/install.inc"
[ -f "$D/share/ktune/kernels/miopen/ConvAsm1x1U.json" ] ||
    fail "make install did not install kernels/miopen"
mkdir "$TMP/elsewhere"
cd "$TMP/elsewhere"
# 24 problems of a solver that kernels/miopen describes, and a row that is
# not one of its configurations
{
    echo "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
    echo "  direction TEXT, in_channels INT, in_h INT, out_channels INT);"
    echo "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
    i=1
    while [ $i -le 24 ]; do
        c=$((i * 16)) p='1,8,2,16,1,2,1,4'
        [ $c -ge 192 ] && p='2,8,2,16,1,2,1,2'
        echo "INSERT INTO config VALUES ($i, 'NCHW', 'FP32', 'F', $c, 28, 128);"
        echo "INSERT INTO perf_db VALUES ($i, 'ConvAsm1x1U', $i, '$p');"
        i=$((i + 1))
    done
    echo "INSERT INTO perf_db VALUES (25, 'ConvAsm1x1U', 1, 'garbage');"
} | sqlite3 gfx000_1.db
K=$D/bin/ktune
"$K" import miopen gfx000_1.db --db r.db >out 2>err || fail "import: $(cat err)"
grep -q "24 new" out || fail "import: $(cat out)"
grep -q "1 rows are not a configuration of their solver" err ||
    fail "import did not check the rows against the installed specs: $(cat err)"
"$K" train --db r.db --kernel ConvAsm1x1U --holdout 0.25 --seed 2 --out m.ktm >/dev/null ||
    fail "train"
"$K" evaluate --model m.ktm --beam 1 >out 2>err || fail "evaluate: $(cat err)"
grep -q "constrained beam search" out || fail "evaluate: $(cat out)"
"$K" predict --model m.ktm --top 1 \
    --problem in_channels=64,in_h=28,out_channels=128,layout=NCHW,data_type=FP32,direction=F \
    >out 2>err || fail "predict: $(cat err)"
grep -q "^read_size=1,k_mult=8," out || fail "predict: $(cat out)"
pass "the installed ktune finds kernels/miopen in PREFIX/share/ktune from any folder"

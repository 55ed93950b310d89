#!/bin/sh
# sass_mix.sh - for each cubin given: its registers, stack, shared and
# local memory, and its 20 most frequent SASS instructions (cuobjdump, on
# the GPU machine).  A wgmma kernel shows HGMMA, a TMA one UTMALDG.
#
#   bench/gpu/sass_mix.sh DIR/cubins/*.cubin
for c in "$@"; do
    [ -f "$c" ] || continue
    echo "== $(basename "$c")"
    cuobjdump -res-usage "$c" | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*'
    cuobjdump -sass "$c" | awk '/\/\*[0-9a-f]+\*\// { for (i = 2; i <= NF; i++)
        if ($i !~ /^@/) { sub(/\..*/, "", $i); print $i; break } }' |
        sort | uniq -c | sort -rn | head -20 | awk '{ printf "%s %s, ", $2, $1 } END { print "" }'
done 2>&1

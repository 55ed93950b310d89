"""sass_banks.py SASS... - for each `cuobjdump -sass` listing of a gemm.cu CUBIN: the k-tile
loop (of the loops a backward branch closes, the shortest that holds the most FFMA), its
instruction count, LDS.128 and FFMA, FFMA with a reuse flag, and FFMA with two or more
source registers not reused in one register bank (register number modulo 2, and modulo 4).
A static count: which of these pairs stall the dispatcher only Nsight can say."""
import re
import sys


def instructions(path):
    out = []
    for line in open(path):
        m = re.search(r"/\*([0-9a-f]{4,6})\*/\s+(.*?);", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2).strip()))
    return out


def is_ffma(text):
    return re.match(r"(@!?P\w+\s+)?FFMA\b", text) is not None


def ktile_loop(ins):
    at = {a: i for i, (a, _) in enumerate(ins)}
    best = (0, 0, 0)  # (FFMA, -instructions, first)
    for i, (a, text) in enumerate(ins):
        m = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", text)
        if m and int(m.group(1), 16) < a and int(m.group(1), 16) in at:
            j = at[int(m.group(1), 16)]
            best = max(best, (sum(is_ffma(t) for _, t in ins[j:i + 1]), -(i - j + 1), j))
    return ins[best[2]:best[2] - best[1]]


def same_bank(text, banks):
    srcs = re.findall(r"(R\d+)(\.reuse)?", text)[1:4]
    free = [int(r[1:]) % banks for r, reused in srcs if not reused]
    return any(free.count(b) >= 2 for b in range(banks))


for path in sys.argv[1:]:
    body = [t for _, t in ktile_loop(instructions(path))]
    ffma = [t for t in body if is_ffma(t)]
    print(f"{path}: loop {len(body)} instructions, {sum('LDS.128' in t for t in body)} LDS.128,"
          f" {len(ffma)} FFMA, {sum('.reuse' in t for t in ffma)} with a reuse flag;"
          f" two non-reused sources in one bank: {sum(same_bank(t, 2) for t in ffma)} (mod 2),"
          f" {sum(same_bank(t, 4) for t in ffma)} (mod 4)")

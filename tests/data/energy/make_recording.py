#!/usr/bin/env python3
"""Write the synthetic time/energy recording (saxpy-energy.csv) to stdout.

A made-up kernel on a made-up GPU whose configurations trade time against
energy, as tuning parameters do on real GPUs: more threads per block and
wider loads run faster but draw more power, so the fastest configuration is
not the most frugal one.  Deterministic (no random numbers): run it again
to get the same file.  See README.md.
"""
import itertools

BLOCKS = [64, 128, 256, 512]
UNROLLS = [1, 2, 4]
VECS = [1, 2, 4]
HEAD = ("created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,"
        "spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail")


def row(i, block, unroll, vec):
    config = f"BLOCK={block},UNROLL={unroll},VEC={vec}"
    created = f"2026-11-24T12:00:{i:02d}.000Z"
    keys = (f'"{created}","Synthetic GPU","saxpy-energy","0123456789abcdef",'
            f'"N=1048576","{config}"')
    if block == 512 and vec == 4 and unroll == 4:  # too many registers
        return keys + ',"compile_error",,,,12.5,,,,0,"too many registers"'
    # Time falls with block size, unrolling and vector width, with a
    # pattern of its own (bank conflicts at BLOCK=256, VEC=4).
    t = 1.0 / (1 + 0.45 * BLOCKS.index(block)) / (1 + 0.18 * UNROLLS.index(unroll))
    t *= 1.0 / (1 + 0.30 * VECS.index(vec))
    t *= 1.15 if (block == 256 and vec == 4) else 1.0
    t *= 1 + 0.013 * ((block * 7 + unroll * 3 + vec) % 5)
    # Power rises with occupancy and load width: faster is hungrier.
    b, u, v = BLOCKS.index(block), UNROLLS.index(unroll), VECS.index(vec)
    p = 90 + 40 * b + 25 * b * b + 30 * v + 12 * v * v + 15 * u
    p += 3 * ((block + unroll * 5 + vec * 11) % 4)
    time_ms = round(t, 5)
    power_w = round(p, 2)
    energy_j = round(power_w * time_ms * 1e-3, 7)
    return keys + (f',"ok",{time_ms},{round(time_ms * 0.99, 5)},0.004,0,'
                   f'{energy_j},{power_w},1755,100,""')


def main():
    print(HEAD)
    for i, (block, unroll, vec) in enumerate(itertools.product(BLOCKS, UNROLLS, VECS)):
        print(row(i, block, unroll, vec))


main()

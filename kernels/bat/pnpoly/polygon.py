#!/usr/bin/env python3
# polygon.py - writes pnpoly's polygon: vertices.bin (600 float2, the
# __constant__ d_vertices) and slopes.bin (600 floats, d_slopes, the slope
# of the edge from vertex j to vertex j-1 exactly as the kernel computes it
# in float arithmetic).  The polygon is a star: vertices on the diamond
# |x| + |y| = r, r alternating 0.9 and 0.5, so it is concave and covers
# part of the points' square [-1, 1)^2.  Run it in this folder.
import struct

N = 600


def f32(x):
    """x rounded to float, as the kernel's float operations round."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def vertex(j):
    r = 0.9 if j % 2 == 0 else 0.5
    q, s = divmod(j * 4, N)
    s = s / N
    x, y = [(1 - s, s), (-s, 1 - s), (s - 1, -s), (s, s - 1)][q]
    return f32(r * x), f32(r * y)


v = [vertex(j) for j in range(N)]
# float subtraction and division are correctly rounded, and rounding the
# double result of float operands to float gives the same value
slopes = [f32(f32(v[j - 1][0] - v[j][0]) / f32(v[j - 1][1] - v[j][1])) for j in range(N)]
with open("vertices.bin", "wb") as f:
    f.write(struct.pack("<%df" % (2 * N), *[c for p in v for c in p]))
with open("slopes.bin", "wb") as f:
    f.write(struct.pack("<%df" % N, *slopes))

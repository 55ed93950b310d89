#!/usr/bin/env python3
# polygon.py - writes pnpoly's polygon: vertices.bin (600 float2, the
# __constant__ d_vertices) and slopes.bin (600 floats, d_slopes, the slope
# of the edge from vertex j to vertex j-1 exactly as the kernel computes it
# in float arithmetic).  The polygon is the ellipse (x/0.9)^2 + (y/1.5)^2
# = 1 over the points' square [-1, 1)^2.  Its only turning points in y, top
# and bottom, lie outside the square on purpose: BAT's kernel says its
# between_methods treat a point level with a vertex differently, and at a
# turning point they count a different number of crossings.  A first,
# star-shaped polygon with 300 turning points inside the square made 10 of
# 17 configurations on the H100 wrong results, all from points level with
# a vertex; here no point can be level with a turning point, and at every
# other vertex the methods agree.  Run it in this folder.
import math
import struct

N = 600


def f32(x):
    """x rounded to float, as the kernel's float operations round."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def vertex(j):
    t = 2 * math.pi * j / N
    return f32(0.9 * math.cos(t)), f32(1.5 * math.sin(t))


v = [vertex(j) for j in range(N)]
# float subtraction and division are correctly rounded, and rounding the
# double result of float operands to float gives the same value
slopes = [f32(f32(v[j - 1][0] - v[j][0]) / f32(v[j - 1][1] - v[j][1])) for j in range(N)]
with open("vertices.bin", "wb") as f:
    f.write(struct.pack("<%df" % (2 * N), *[c for p in v for c in p]))
with open("slopes.bin", "wb") as f:
    f.write(struct.pack("<%df" % N, *slopes))

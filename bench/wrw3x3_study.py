#!/usr/bin/env python3
"""wrw3x3_study.py - what ConvAsmBwdWrW3x3's best configurations look like in
an imported MIOpen database (docs/PREDICTION.md, issue 14): how many distinct
winners there are and how concentrated, which descriptor fields decide each
tuning parameter (mutual information, in bits, over the parameter's entropy),
and how noisy the labels are (how often problems that differ only in
batchsize, or only in in_h/in_w, share the same winner).

    bench/wrw3x3_study.py miopen.db [KERNEL]
"""
import collections
import math
import sqlite3
import sys


def rows(db, kernel, prec):
    q = ("select p.key, m.config from measurement m join problem p on p.id = m.problem_id "
         "join kernel k on k.id = p.kernel_id where k.name = ? and m.status = 'ok' "
         "and p.key like ?")
    out = []
    for key, config in sqlite3.connect(db).execute(q, (kernel, f"%data_type={prec},%")):
        out.append((dict(f.split("=", 1) for f in key.split(",")),
                    dict(f.split("=", 1) for f in config.split(","))))
    return out


def entropy(values):
    n = len(values)
    return -sum(c / n * math.log2(c / n) for c in collections.Counter(values).values())


def mutual(xs, ys):
    groups = collections.defaultdict(list)
    for x, y in zip(xs, ys):
        groups[x].append(y)
    n = len(ys)
    return entropy(ys) - sum(len(g) / n * entropy(g) for g in groups.values())


def agreement(data, ignore):
    """Share of pairs of problems equal but for the fields in ignore whose
    winners are the same (whole configuration), and their count."""
    groups = collections.defaultdict(list)
    for desc, conf in data:
        groups[tuple((k, v) for k, v in sorted(desc.items()) if k not in ignore)].append(
            tuple(sorted(conf.items())))
    same = pairs = 0
    for g in groups.values():
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                pairs += 1
                same += g[i] == g[j]
    return same, pairs


def param_agreement(data, ignore):
    """Per tuning parameter: the share of pairs equal but for ignore that
    agree on it."""
    groups = collections.defaultdict(list)
    for desc, conf in data:
        groups[tuple((k, v) for k, v in sorted(desc.items()) if k not in ignore)].append(conf)
    agree, pairs = collections.Counter(), 0
    for g in groups.values():
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                pairs += 1
                for p in g[i]:
                    agree[p] += g[i][p] == g[j][p]
    return {p: 100 * a / pairs for p, a in agree.items()} if pairs else {}


def study(db, kernel, prec):
    data = rows(db, kernel, prec)
    winners = collections.Counter(tuple(sorted(c.items())) for _, c in data)
    n = len(data)
    top = winners.most_common(10)
    print(f"## {kernel} {prec}: {n} problems, {len(winners)} distinct winners; "
          f"the most common covers {100 * top[0][1] / n:.1f}%, the 10 most common "
          f"{100 * sum(c for _, c in top) / n:.1f}%, winners seen once "
          f"{100 * sum(1 for c in winners.values() if c == 1) / n:.1f}% of problems")
    print("most common:", ", ".join(f"{','.join(v for _, v in w)} ({c})" for w, c in top[:3]),
          "  (order:", ",".join(k for k, _ in top[0][0]) + ")")
    fields = [f for f in data[0][0] if len({d[f] for d, _ in data}) > 1]
    print("varying descriptor fields:", ", ".join(
        f"{f} ({len({d[f] for d, _ in data})})" for f in fields))
    for p in data[0][1]:
        ys = [c[p] for _, c in data]
        h = entropy(ys)
        if h == 0:
            print(f"{p}: constant")
            continue
        mi = sorted(((mutual([d[f] for d, _ in data], ys) / h, f) for f in fields),
                    reverse=True)[:3]
        vals = collections.Counter(ys).most_common(4)
        print(f"{p}: entropy {h:.2f} bits, values {vals}; decided by "
              + ", ".join(f"{f} {100 * r:.0f}%" for r, f in mi))
    for ignore in (("batchsize",), ("direction",), ("in_h", "in_w"), ("batchsize", "in_h", "in_w")):
        same, pairs = agreement(data, set(ignore))
        if pairs:
            print(f"problems equal but for {'/'.join(ignore)}: {pairs} pairs, same winner "
                  f"in {100 * same / pairs:.1f}%")
    per = param_agreement(data, {"batchsize"})
    print("equal but for batchsize, agreeing on:", ", ".join(
        f"{p} {a:.0f}%" for p, a in sorted(per.items(), key=lambda t: t[1])))
    print()


if __name__ == "__main__":
    db = sys.argv[1]
    kernel = sys.argv[2] if len(sys.argv) > 2 else "ConvAsmBwdWrW3x3"
    for prec in ("FP32", "FP16"):
        study(db, kernel, prec)

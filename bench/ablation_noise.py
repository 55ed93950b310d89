"""ablation_noise.py - the ablation's verdicts (agree / tie / disagree) again, with
between-run noise added to each reading's.

`ktune analyze` calls two parameters' costs a tie when they differ by less than twice the
standard deviation of their difference, which it takes from the repetitions' spread of the
two times each cost is made of.  Repetitions share the device's state; readings of one
configuration taken minutes apart in one call differ more (the H200's wgmma time retests:
1.3-1.7 % root mean square between two readings, so about 1 % a reading).  This recounts the
verdicts of `ktune analyze --json` outputs with a relative between-run noise b added to
each reading's (in quadrature: the difference of two readings gains a variance of 2 b^2).
b = 0 must give the verdicts `ktune analyze` gave (checked, and said where not).

usage: ablation_noise.py JSON... [--noise 0,0.005,0.01,0.02]
   e.g. KEEP=/tmp/keep sh bench/analyze_public.sh; python3 bench/ablation_noise.py /tmp/keep/*.json
"""
import json
import math
import sys

TIE_SDS = 2.0  # analyze_rank.c's


def verdict(ablation, b):
    """The whole check's verdict with between-run noise b, as analyze_rank.c's judge()."""
    if not ablation:
        return "none"
    c0, worst = ablation[0]["cost"], "agree"
    for a in ablation[1:]:
        d = math.log(c0) - math.log(a["cost"])
        sd = a["sd"] if a["sd"] is not None else 0.0
        var = sd * sd + (2 * b * b if d != 0 else 0)
        tol = max(TIE_SDS * math.sqrt(var), 1e-9)
        v = "disagree" if d < -tol else "tie" if abs(d) <= tol else "agree"
        if v == "disagree" or (v == "tie" and worst == "agree"):
            worst = v
    return worst


def main(argv):
    noises = [0.0, 0.005, 0.01, 0.02]
    if "--noise" in argv:
        i = argv.index("--noise")
        noises = [float(x) for x in argv[i + 1].split(",")]
        argv = argv[:i] + argv[i + 2:]
    runs = [json.load(open(p)) for p in argv]
    print("| recording | " + " | ".join(f"b = {100 * f:g} %" for f in noises) + " |")
    print("| --- |" + " --- |" * len(noises))
    counts = {f: {"agree": 0, "tie": 0, "disagree": 0} for f in noises}
    for p, j in zip(argv, runs):
        got = [verdict(j["ablation"], f) for f in noises]
        if 0.0 in noises and got[noises.index(0.0)] != j["ablation_check"]:
            print(f"# {p}: b = 0 gives {got[noises.index(0.0)]}, ktune said "
                  f"{j['ablation_check']}", file=sys.stderr)
        for f, v in zip(noises, got):
            if v in counts[f]:
                counts[f][v] += 1
        print(f"| {j['kernel']} on {j['device']} | " + " | ".join(got) + " |")
    print()
    for f in noises:
        c = counts[f]
        print(f"b = {100 * f:g} %: agree {c['agree']}, tie {c['tie']}, disagree {c['disagree']}"
              f" of {sum(c.values())}")


if __name__ == "__main__":
    main(sys.argv[1:])

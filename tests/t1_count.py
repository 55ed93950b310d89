#!/usr/bin/env python3
"""t1_count.py - count a T1 spec's configuration space with Python itself.

The reference for tests/test_t1.c: Values and Conditions are evaluated by
Python's own eval (as Kernel Tuner does), so ktune's evaluator is checked
against the language the files are written in.  The count is exact: a
depth-first walk over the parameters in spec order tests each condition as
soon as every name it reads is bound, and multiplies out the trailing
parameters that no condition reads.  --brute walks the whole Cartesian
product instead (use it on small spaces to check the walk itself).

Usage: python3 tests/t1_count.py [--brute] SPEC.json...
Prints "COUNT SPEC" per file.  Plain python3, no third-party modules.
"""
import ast
import itertools
import json
import math
import sys


def values_of(param):
    """A parameter's value list, as Kernel Tuner evaluates T1 Values."""
    v = param["Values"]
    if isinstance(v, list):  # a JSON array (BAT writes some)
        out = []
        for x in v:
            if isinstance(x, str):
                try:
                    x = ast.literal_eval(x.strip())
                except (ValueError, SyntaxError):
                    pass
            out.append(x)
        return out
    return list(eval(v, {"__builtins__": {"range": range, "list": list}}))


def names_in(expr):
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}


def load(path):
    with open(path) as f:
        spec = json.load(f)
    params = spec["ConfigurationSpace"]["TuningParameters"]
    names = [p["Name"] for p in params]
    values = [values_of(p) for p in params]
    conds = [c["Expression"] for c in spec["ConfigurationSpace"].get("Conditions", [])]
    env = {}
    ks = spec.get("KernelSpecification", {})
    ps = ks.get("ProblemSize")
    if ps is not None:
        env["ProblemSize"] = ps if isinstance(ps, list) else [ps]
    for p in spec["ConfigurationSpace"].get("ProblemParameters", []):
        env[p["Name"]] = p["Default"]
    return names, values, conds, env


def holds(code, bound):
    try:
        return bool(eval(code, {"__builtins__": __builtins__}, bound))
    except ZeroDivisionError:  # ktune, like Kernel Tuner, drops such a config
        return False


def count(path):
    names, values, conds, env = load(path)
    compiled = [compile(c, path, "eval") for c in conds]
    # the condition checks that become possible once parameter i is bound
    last = [[] for _ in names]
    for c, code in zip(conds, compiled):
        idx = [names.index(n) for n in names_in(c) if n in names]
        last[max(idx) if idx else 0].append(code)
    free_from = len(names)  # parameters from here on are read by no condition
    while free_from > 0 and not last[free_from - 1]:
        free_from -= 1
    tail = math.prod(len(v) for v in values[free_from:])

    def walk(i, bound):
        if i == free_from:
            return tail
        n = 0
        for v in values[i]:
            bound[names[i]] = v
            if all(holds(code, bound) for code in last[i]):
                n += walk(i + 1, bound)
        del bound[names[i]]
        return n

    return walk(0, dict(env)) if free_from > 0 else tail


def brute(path):
    names, values, conds, env = load(path)
    compiled = [compile(c, path, "eval") for c in conds]
    n = 0
    for combo in itertools.product(*values):
        bound = dict(env, **dict(zip(names, combo)))
        n += all(holds(code, bound) for code in compiled)
    return n


if __name__ == "__main__":
    args = sys.argv[1:]
    fn = count
    if args and args[0] == "--brute":
        fn, args = brute, args[1:]
    for p in args:
        print(fn(p), p)

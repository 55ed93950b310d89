"""narrow_spec.py - a copy of a T1 spec whose tuning parameters keep only
the values given: NAME=v1/v2/... (parameters not named keep theirs).  For
measuring a few chosen configurations of two kernels side by side.

usage: narrow_spec.py SPEC NAME=v1/v2,... > NARROW.json   (write it beside
SPEC: the kernel files are found relative to the spec)"""
import json
import sys

spec = json.load(open(sys.argv[1]))
keep = dict(kv.split("=") for kv in sys.argv[2].split(","))
for p in spec["ConfigurationSpace"]["TuningParameters"]:
    if p["Name"] in keep:
        values = [int(v) for v in keep[p["Name"]].split("/")]
        p["Values"] = str(values)
        if p["Default"] not in values:
            p["Default"] = values[0]
spec["General"]["BenchmarkName"] += "-narrow"
json.dump(spec, sys.stdout, indent=1)

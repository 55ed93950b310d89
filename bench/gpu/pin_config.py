"""pin_config.py - a copy of a T1 spec whose space is one configuration:
each tuning parameter keeps only the value KEY gives it ("BM=64,BN=128,..."),
and a parameter KEY does not name keeps only its default (so a parameter added
to the spec later does not break an old key). For measuring a chosen
configuration again (its energy, say).

usage: pin_config.py SPEC KEY > PINNED.json   (write it beside SPEC: the
kernel files are found relative to the spec)"""
import json
import sys

spec = json.load(open(sys.argv[1]))
key = dict(kv.split("=") for kv in sys.argv[2].split(","))
names = {p["Name"] for p in spec["ConfigurationSpace"]["TuningParameters"]}
unknown = sorted(set(key) - names)
if unknown:
    sys.exit(f"pin_config.py: {sys.argv[1]} has no parameter {', '.join(unknown)}")
for p in spec["ConfigurationSpace"]["TuningParameters"]:
    value = key.get(p["Name"], p["Default"])
    p["Values"] = f"[{value}]"
    p["Default"] = int(value)
spec["General"]["BenchmarkName"] += "-pinned"
json.dump(spec, sys.stdout, indent=1)

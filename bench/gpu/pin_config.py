"""pin_config.py - a copy of a T1 spec whose space is one configuration:
each tuning parameter keeps only the value KEY gives it ("BM=64,BN=128,...").
For measuring a chosen configuration again (its energy, say).

usage: pin_config.py SPEC KEY > PINNED.json   (write it beside SPEC: the
kernel files are found relative to the spec)"""
import json
import sys

spec = json.load(open(sys.argv[1]))
key = dict(kv.split("=") for kv in sys.argv[2].split(","))
for p in spec["ConfigurationSpace"]["TuningParameters"]:
    p["Values"] = f"[{key[p['Name']]}]"
    p["Default"] = int(key[p["Name"]])
spec["General"]["BenchmarkName"] += "-pinned"
json.dump(spec, sys.stdout, indent=1)

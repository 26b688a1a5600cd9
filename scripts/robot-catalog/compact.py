#!/usr/bin/env python3
"""Turns derive.py's full catalog into schemas/robots.json, the catalog pipeline ships: per
parameter only its types, enum, range, default, nullability, suggestions and a one-line
description; parameters of the SDK's shared building blocks (robotBase, robotUse, ...) are
listed once under "shared" and named by each robot that takes them; a robot lists its own
parameters and those whose form differs from the shared one.

Usage: compact.py FULL.json schemas/robots.json
"""
import html
import json
import sys
src = json.load(open(sys.argv[1]))
KEEP = ("type", "enum", "minimum", "maximum", "default", "nullable")

def one_line(text, limit=160):
    text = html.unescape(" ".join((text or "").split()))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

def compact(param):
    out = {}
    types = param.get("type")
    if types is not None:
        out["type"] = types if isinstance(types, list) else [types]
    for key in KEEP[1:]:
        if key in param and param[key] is not None:
            out[key] = param[key]
    if "enum" not in out and param.get("suggestions"):
        out["suggestions"] = param["suggestions"]
    if param.get("description"):
        out["description"] = one_line(param["description"])
    return out

# Each shared block's parameters, in the form most robots that use the block have them.
from collections import Counter
forms = {}
for robot in src["robots"].values():
    for pname, param in robot["parameters"].items():
        block = param.get("shared_from")
        if block:
            forms.setdefault(block, {}).setdefault(pname, Counter())[json.dumps(compact(param), sort_keys=True)] += 1
shared = {block: {pname: json.loads(counter.most_common(1)[0][0]) for pname, counter in params.items()} for block, params in forms.items()}

robots = {}
for name, robot in sorted(src["robots"].items()):
    groups = [g for g in robot.get("shared_groups", []) if g in shared]
    own = {}
    for pname, param in robot["parameters"].items():
        c = compact(param)
        origin = param.get("shared_from")
        if origin in shared and shared[origin].get(pname) == c:
            continue
        own[pname] = c
    robots[name] = {"summary": one_line(robot.get("summary") or robot.get("title") or ""), "shared": groups, "parameters": own}
out = {"version": 1, "source": src["source"], "shared": shared, "robots": robots}
json.dump(out, open(sys.argv[2], "w"), indent=1, sort_keys=True, ensure_ascii=False)
print(len(robots), sum(len(r["parameters"]) for r in robots.values()), sum(len(s) for s in shared.values()))

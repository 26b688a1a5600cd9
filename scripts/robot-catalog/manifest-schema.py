#!/usr/bin/env python3
"""Generates the robot part of schemas/manifest.schema.json from schemas/robots.json, so editors
that speak the YAML language server complete robot names and each robot's parameters, and flag
wrong values as you type. Only `$defs.step` and the `$defs.robot_*` entries are written; the
rest of the schema is edited by hand.

Usage: manifest-schema.py [--check]   (--check: exit 1 when the schema is out of date)
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "schemas" / "robots.json"
SCHEMA = ROOT / "schemas" / "manifest.schema.json"
# Any value may hold an Assembly variable or an environment reference, resolved later.
VARIABLE = {"type": "string", "pattern": "\\$\\{"}
NUMERIC_STRING = {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"}


def parameter_schema(parameter):
    types = parameter.get("type", ["any"])
    if "any" in types:
        schema = {}
    else:
        options = []
        for kind in types:
            option = {"type": kind}
            if kind in ("integer", "number"):
                if "minimum" in parameter:
                    option["minimum"] = parameter["minimum"]
                if "maximum" in parameter:
                    option["maximum"] = parameter["maximum"]
            options.append(option)
        if "integer" in types or "number" in types:
            options.append(NUMERIC_STRING)
        if "boolean" in types:
            options.append({"enum": ["true", "false"]})
        if parameter.get("nullable"):
            options.append({"type": "null"})
        if "enum" in parameter:
            options = [{"enum": parameter["enum"] + ([None] if parameter.get("nullable") else [])}]
        schema = {"anyOf": options + [VARIABLE]}
    if parameter.get("description"):
        schema["description"] = parameter["description"]
    if "default" in parameter:
        schema["default"] = parameter["default"]
    return schema


def key(name):
    """A `$defs` key for a robot or shared block: no '/', which JSON pointers would need escaped."""
    return "robot" + name.replace("/", "_")


def generate(catalog, schema):
    defs = {name: value for name, value in schema["$defs"].items() if not name.startswith("robot_") and not name.startswith("robot:")}
    step = defs["step"]
    robots = sorted(catalog["robots"])
    step["properties"]["robot"] = {
        "description": "The robot that runs this step; 'pipeline robots' lists them.",
        "anyOf": [{"enum": robots}, {"$ref": "#/$defs/interpolated"}],
    }
    step["allOf"] = [
        {"if": {"properties": {"robot": {"const": name}}, "required": ["robot"]}, "then": {"$ref": "#/$defs/" + key(name)}}
        for name in robots
    ]
    for block, parameters in sorted(catalog["shared"].items()):
        defs[key("_shared_" + block)] = {"properties": {name: parameter_schema(p) for name, p in sorted(parameters.items())}}
    for name in robots:
        robot = catalog["robots"][name]
        defs[key(name)] = {
            "description": robot.get("summary", ""),
            "allOf": [{"$ref": "#/$defs/" + key("_shared_" + block)} for block in robot.get("shared", [])],
            # bundle_steps: documented on steps though the SDK moved it into `use` (see RobotCatalog.legacy).
            "properties": {"robot": True, "use": True, "bundle_steps": parameter_schema({"type": ["boolean"]}),
                           **{p: parameter_schema(v) for p, v in sorted(robot["parameters"].items())}},
            "unevaluatedProperties": False,
        }
    schema["$defs"] = defs
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main():
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    current = SCHEMA.read_text(encoding="utf-8")
    generated = generate(catalog, json.loads(current))
    if "--check" in sys.argv:
        if generated != current:
            print("schemas/manifest.schema.json is out of date: run scripts/robot-catalog/manifest-schema.py", file=sys.stderr)
            sys.exit(1)
        return
    SCHEMA.write_text(generated, encoding="utf-8")


main()

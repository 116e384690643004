#!/usr/bin/env python3
"""Validates npusim input files against the JSON Schemas of docs/schema/ with an independent
validator (Debian python3-jsonschema), the way an editor with the YAML language server does.

  validate_schemas.py ROOT                      every shipped scenario and profile must start
                                                with a `# yaml-language-server: $schema=...`
                                                line naming a schema of ROOT/docs/schema and
                                                must validate against it
  validate_schemas.py ROOT --bad NPUSIM FILE... every FILE must fail its schema, and
                                                `NPUSIM run FILE` must reject it too (exit 2)
"""
import glob
import os
import subprocess
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover
    sys.exit(f"validate_schemas: {e}: install python3-jsonschema and python3-yaml (tools/deps.sh)")

MODELINE = "# yaml-language-server: $schema="


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML reads YAML 1.1, where `on:`, `off`, `yes` and `no` are booleans; npusim (yaml-cpp)
    and the YAML language server read YAML 1.2, where only true and false are. Load as 1.2."""


Yaml12Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", __import__("re").compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                   list("tTfF"))


def schema_of(path, root):
    with open(path, encoding="utf-8") as f:
        first = f.readline().rstrip("\n")
    if not first.startswith(MODELINE):
        raise ValueError(f"{path}:1: does not start with '{MODELINE}...'")
    ref = first[len(MODELINE):].strip()
    schema_path = os.path.normpath(os.path.join(os.path.dirname(path), ref))
    schema_dir = os.path.normpath(os.path.join(root, "docs", "schema"))
    if os.path.dirname(schema_path) != schema_dir or not os.path.exists(schema_path):
        raise ValueError(f"{path}:1: $schema={ref} is not a schema of docs/schema/")
    return schema_path


def errors(path, root):
    import json
    with open(schema_of(path, root), encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    with open(path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=Yaml12Loader)
    return [f"{path}: at /{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]


def doc_example_errors(root):
    """The `# example:` blocks of the scenario references, which the docs tests run."""
    import json
    import re
    out, n = [], 0
    for doc, name in (("scenarios.md", "scenario"), ("snitch-cluster.md", "snitch-scenario")):
        path = os.path.join(root, "docs", doc)
        with open(os.path.join(root, "docs", "schema", name + ".schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for block in re.findall(r"```yaml\n(# example: [^\n]*\n[^`]*)```", text):
            n += 1
            label = block.splitlines()[0][len("# example: "):]
            for e in jsonschema.Draft7Validator(schema).iter_errors(yaml.load(block, Loader=Yaml12Loader)):
                out.append(f"{path}: example {label}: at /{'/'.join(map(str, e.absolute_path))}: {e.message}")
    return n, out


def shipped(root):
    files = sorted(glob.glob(os.path.join(root, "scenarios", "*.yaml")))
    files += sorted(glob.glob(os.path.join(root, "scenarios", "snitch", "*.yaml")))
    files += sorted(glob.glob(os.path.join(root, "scenarios", "platforms", "*.yaml")))
    files += sorted(glob.glob(os.path.join(root, "sim", "platforms", "*.yaml")))
    return files


def main(argv):
    root = argv[1]
    failed = []
    if len(argv) > 2 and argv[2] == "--bad":
        npusim, files = argv[3], argv[4:]
        for path in files:
            try:
                errs = errors(path, root)
            except ValueError as e:
                failed.append(str(e))
                continue
            if not errs:
                failed.append(f"{path}: the schema accepts it")
            rc = subprocess.run([npusim, "run", path], capture_output=True).returncode
            if rc != 2:
                failed.append(f"{path}: npusim run exits {rc}, not 2: the parser accepts it")
        checked = len(files)
    else:
        files = shipped(root)
        if len(files) < 3:
            failed.append(f"{root}: found only {len(files)} shipped files")
        for path in files:
            try:
                failed += errors(path, root)
            except ValueError as e:
                failed.append(str(e))
        n, errs = doc_example_errors(root)
        if n == 0:
            failed.append("no `# example:` blocks found in docs/scenarios.md, docs/snitch-cluster.md")
        failed += errs
        checked = len(files) + n
    for f in failed:
        print(f, file=sys.stderr)
    print(f"validate_schemas: {checked} files, {len(failed)} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

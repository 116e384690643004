"""Checks of npusim's output files shared by the Python test scripts: a JSON file that parses,
a VCD that is complete. Each takes the script's `fail(message)`, which ends the test."""
import json
import os


def env_without_leak_check():
    """The environment with LeakSanitizer off (AddressSanitizer and UBSan stay on) for a run in
    which a kernel is taken back to its entry (a contained fault, or the watchdog after a
    signal): the frames it abandons never free what they owned, by design
    (docs/architecture.md), and the leak check at exit would fail the run."""
    return dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")


def load_json(path, fail):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path} is not valid JSON: {e}")


def check_vcd(path, fail):
    """Header with $enddefinitions, every value change on a declared id, times nondecreasing."""
    ids, t, defs_done = set(), -1, False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if not defs_done:
                w = line.split()
                if w[0] == "$var":
                    ids.add(w[3])
                if w[0] == "$enddefinitions":
                    defs_done = True
                continue
            if line.startswith("#"):
                now = int(line[1:])
                if now < t:
                    fail(f"{path}:{n}: time {now} before {t}")
                t = now
            elif line[0] in "01xz":
                if line[1:] not in ids:
                    fail(f"{path}:{n}: undeclared id in '{line}'")
            elif line[0] == "b":
                if len(line.split()) != 2 or line.split()[1] not in ids:
                    fail(f"{path}:{n}: bad vector change '{line}'")
            elif not line.startswith("$"):
                fail(f"{path}:{n}: not VCD: '{line}'")
    if not defs_done:
        fail(f"{path}: no $enddefinitions (cut short)")

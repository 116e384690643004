#!/usr/bin/env python3
"""Runs the examples of a documentation page, checks links, counts the blocks that are not run.

Every fenced block of README.md and docs/*.md is one of these (docs/README.md, "Examples in
these pages", is the reference for writers):

  ```sh            commands, run one by one with bash in the page's scratch folder; each must
                   exit 0, or the code a trailing comment names ("# exit 1: ...").
  ```console       a console transcript: "$ COMMAND" lines, each followed by the output it prints
                   (stdout and stderr). The output is compared: "..." on a line of its own
                   stands for any lines, "..." inside a line for any text. "$ cat FILE" of a file
                   that does not exist yet writes FILE with the lines shown (an input example).
  ```synopsis      a command's synopsis: every option it names must be one of the command's
                   --help; every option of --help must be named by some synopsis of the command.
  ```yaml          "# example: NAME" first: a scenario, written to NAME.yaml and run by
                   `npusim run` (exit 0). "# file: PATH" first: written to PATH for later blocks.
  ```c++ / cpp     "// file: PATH" lines start the files the block holds (written for later
                   blocks, which compile them).
  ```cmake         "# file: PATH" first: written to PATH.
  ```python        a script, run by /usr/bin/python3 with build/python on PYTHONPATH (exit 0).
  any language     "# excerpt of PATH" / "// excerpt of PATH" first: the block's lines appear in
                   PATH (a file the tests compile or run) in order ("..." skips lines).
  ```text          a diagram or a layout: not run, counted in tests/docs/not_run.txt.
  any language     "# not run: WHY" / "// not run: WHY" / "not run: WHY" first: not run, counted.

The scratch folder holds a copy of the source tree (scenarios/, tests/, ...), a `build` link to
the build tree and `npusim`, a link to the copy; `npusim` runs the build's program (PATH), and
/opt/npusim in a command is a prefix this script installs the build into.

  doc_test.py page PAGE --source DIR --build DIR --work DIR
  doc_test.py links --source DIR
  doc_test.py not-run --source DIR --list tests/docs/not_run.txt
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^\s`]*)\s*$")
MARKER = re.compile(r"^\s*(?:#|//)?\s*not run:\s*(.+?)\s*$")
EXCERPT = re.compile(r"^\s*(?:#|//)\s*excerpt of\s+(\S+)\s*$")
FILE_LINE = re.compile(r"^\s*(?:#|//)\s*file:\s*(\S+)\s*$")
EXAMPLE = re.compile(r"^#\s*example:\s*([\w.-]+)\s*$")
# Commands that would build, install or test the tree from inside a test, or touch the system.
FORBIDDEN = re.compile(r"(tools/(test|run|deps)\.sh|\.ci/run|\bapt(-get)?\b|\bsudo\b|\bctest\b"
                       r"|-B\s+build\b|--build\s+build\b|tools/html_screenshots\.sh)")
PREFIX_PLACEHOLDER = "/opt/npusim"
CODE_DIRS = ("allocators", "models", "platforms", "firmware", "sim")
TOP_DIRS = CODE_DIRS + ("tests", "bench", "tools", "cmake", "scenarios", "docs", "output", "run", "input", "cli")
TIMEOUT = 300


class Fail(Exception):
    pass


def pages(source):
    return ["README.md"] + sorted(os.path.relpath(p, source) for p in glob.glob(os.path.join(source, "docs", "*.md")))


def blocks(path):
    """(line of the opening fence, info string, body lines) of every fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            indent, fence, info = m.group(1), m.group(2), m.group(3)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence[:3]):
                j += 1
            if j == len(lines):
                raise Fail("%s:%d: a fenced block that never closes" % (path, i + 1))
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:j]]
            out.append((i + 1, info.lower(), body))
            i = j
        i += 1
    return out


def first_line(body):
    return next((l for l in body if l.strip()), "")


def not_run_entry(info, body):
    """The not_run.txt entry of a block that is deliberately not run, else None."""
    m = MARKER.match(first_line(body))
    if m:
        return m.group(1)
    if info == "text":
        return "text: " + first_line(body).strip()
    return None


# ---- comparing output ------------------------------------------------------------------------

def line_matches(pattern, line):
    if "..." not in pattern:
        return pattern == line
    parts = [re.escape(p) for p in pattern.split("...")]
    return re.fullmatch(".*".join(parts), line, re.S) is not None


def output_matches(expected, actual):
    """expected: lines, where a line "..." stands for any number of lines."""
    exp = [l.rstrip() for l in expected]
    act = [l.rstrip() for l in actual]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()
    memo = {}

    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(exp):
            r = j == len(act)
        elif exp[i].strip() == "...":
            r = any(m(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and line_matches(exp[i], act[j]) and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    sys.setrecursionlimit(max(10000, 4 * (len(exp) + len(act))))
    return m(0, 0)


# ---- the scratch folder ----------------------------------------------------------------------

class Page:
    def __init__(self, a, page):
        self.a, self.page = a, page
        self.work = os.path.abspath(a.work)
        self.prefix = None
        self.ready = False
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.abspath(a.build) + os.pathsep + self.env.get("PATH", "")
        self.env["SC_COPYRIGHT_MESSAGE"] = "DISABLE"
        self.env.pop("NPUSIM", None)

    def prepare(self):
        """The scratch folder, made when the first block needs it."""
        if self.ready:
            return
        self.ready = True
        a = self.a
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        src = os.path.abspath(a.source)
        build = os.path.abspath(a.build)
        for e in os.listdir(src):
            if e.startswith(".") or e.startswith("build"):
                continue
            s = os.path.join(src, e)
            if os.path.isdir(s):
                shutil.copytree(s, os.path.join(self.work, e), symlinks=True)
            else:
                shutil.copy2(s, os.path.join(self.work, e))
        os.symlink(build, os.path.join(self.work, "build"))
        os.symlink(".", os.path.join(self.work, "npusim"))

    def install(self):
        self.prepare()
        if self.prefix is None:
            self.prefix = os.path.join(self.work, ".prefix")
            p = subprocess.run(["cmake", "--install", self.a.build, "--prefix", self.prefix],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                raise Fail("cmake --install %s failed:\n%s" % (self.a.build, p.stdout[-3000:]))
        return self.prefix

    def shell(self, where, cmd):
        self.prepare()
        if FORBIDDEN.search(cmd):
            raise Fail("%s: `%s` must not run inside the test suite: mark the block `# not run: WHY`"
                       % (where, cmd))
        if PREFIX_PLACEHOLDER in cmd:
            cmd = cmd.replace(PREFIX_PLACEHOLDER, self.install())
        # Its own process group, so that a command that runs too long is stopped with its children.
        p = subprocess.Popen(["bash", "-c", cmd], cwd=self.work, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        try:
            out, _ = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise Fail("%s: `%s` ran longer than %d s" % (where, cmd, TIMEOUT))
        return p.returncode, out

    def write(self, where, rel, lines):
        self.prepare()
        path = os.path.normpath(os.path.join(self.work, rel))
        if not path.startswith(self.work + os.sep):
            raise Fail("%s: '%s' is outside the scratch folder" % (where, rel))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines).rstrip("\n") + "\n")


def commands(body):
    """Shell commands of a sh block: comment-only and blank lines skipped, '\\' continued."""
    out, cur, start = [], "", 0
    for n, l in enumerate(body):
        if not cur and (not l.strip() or l.lstrip().startswith("#")):
            continue
        if not cur:
            start = n
        if l.rstrip().endswith("\\"):
            cur += l.rstrip()[:-1] + " "
            continue
        out.append((start, cur + l))
        cur = ""
    if cur:
        out.append((start, cur))
    return out


def expected_exit(cmd):
    m = re.search(r"#.*\bexit (\d+)\b", cmd)
    return int(m.group(1)) if m else 0


def run_sh(pg, where, body):
    """The block's commands in one shell (a `cd` holds for the rest of the block), each checked
    for its exit code."""
    cmds = commands(body)
    script = []
    for k, (n, cmd) in enumerate(cmds):
        if FORBIDDEN.search(cmd):
            raise Fail("%s: `%s` must not run inside the test suite: mark the block `# not run: WHY`"
                       % (where, cmd.strip()))
        script.append(cmd)
        script.append('rc=$?; if [ $rc -ne %d ]; then echo "__doc_test_failed__ %d $rc"; exit 1; fi'
                      % (expected_exit(cmd), k))
    rc, out = pg.shell(where, "\n".join(script))
    m = re.search(r"__doc_test_failed__ (\d+) (\d+)", out)
    if m or rc != 0:
        k = int(m.group(1)) if m else len(cmds) - 1
        n, cmd = cmds[k]
        got = m.group(2) if m else rc
        raise Fail("%s (+%d): `%s` exits %s, not %d:\n%s" % (where, n + 1, cmd.strip(), got,
                                                             expected_exit(cmd), out[-3000:]))
    return len(cmds)


def run_python(pg, where, line, body):
    """A Python block: a script run by Debian's interpreter (its packages, python3-torch among
    them) in the scratch folder, with the build's Python package (build/python) on PYTHONPATH;
    it must exit 0."""
    script = ".doc_test_block_%d.py" % line
    pg.write(where, script, body)
    rc, out = pg.shell(where, 'PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 %s' % script)
    if rc != 0:
        raise Fail("%s: the Python block exits %d:\n%s" % (where, rc, out[-3000:]))
    return 1


def run_console(pg, where, body):
    """$ lines and their output."""
    steps, cur = [], None
    for l in body:
        if l.startswith("$ "):
            cur = [l[2:], []]
            steps.append(cur)
        elif cur is None:
            raise Fail("%s: a console block starts with '$ COMMAND'" % where)
        else:
            cur[1].append(l)
    pg.prepare()
    last_rc, cwd = 0, pg.work
    pwd_file = os.path.join(pg.work, ".doc_test_pwd")
    for cmd, expected in steps:
        m = re.fullmatch(r"cat\s+(\S+)\s*", cmd)
        if m and not os.path.exists(os.path.join(cwd, m.group(1))):
            pg.write(where, os.path.relpath(os.path.join(cwd, m.group(1)), pg.work), expected)
        # Each command runs in a shell of its own, in the folder the one before left (a `cd`
        # holds for the rest of the block), and `$?` is the exit code of the one before.
        script = 'cd "%s" || exit 99\n{ %s\n}\nrc=$?; pwd > "%s"; exit $rc' % (cwd, cmd.replace("$?", str(last_rc)), pwd_file)
        rc, out = pg.shell(where, script)
        if os.path.exists(pwd_file):
            cwd = open(pwd_file).read().strip()
            os.remove(pwd_file)
        if not output_matches(expected, out.split("\n")):
            raise Fail("%s: `%s` prints (exit %d):\n%s\n--- the page shows:\n%s"
                       % (where, cmd, rc, out.rstrip(), "\n".join(expected).rstrip()))
        last_rc = rc
    return len(steps)


# ---- synopses --------------------------------------------------------------------------------

def synopsis_entries(body):
    """(command path, options) of each `npusim ...` entry; continuation lines start with space."""
    entries = []
    for l in body:
        l = re.sub(r"\s#.*$", "", l)
        if not l.strip():
            continue
        if l.startswith("npusim"):
            words = l.split()
            path = []
            for w in words[1:]:
                if re.fullmatch(r"[a-z][a-z-]*", w):
                    path.append(w)
                else:
                    break
            entries.append([path, l])
        elif entries:
            entries[-1][1] += " " + l
    return [(p, set(re.findall(r"(?:^|[\s\[|])(--?[A-Za-z][\w-]*)", text))) for p, text in entries]


HELP_CACHE = {}


def help_options(pg, path):
    key = tuple(path)
    if key not in HELP_CACHE:
        rc, out = pg.shell("synopsis", " ".join(["npusim"] + path + ["--help"]))
        if rc != 0:
            raise Fail("npusim %s --help exits %d:\n%s" % (" ".join(path), rc, out))
        opts = {}
        for l in out.split("\n"):
            m = re.match(r"^\s+((?:-\w,)?--[\w-]+|-\w)\b", l)
            if m:
                names = m.group(1).split(",")
                long = [n for n in names if n.startswith("--")]
                for n in names:
                    opts[n] = long[0] if long else n
        HELP_CACHE[key] = opts
    return HELP_CACHE[key]


def check_synopsis(pg, where, body, seen):
    for path, opts in synopsis_entries(body):
        known = help_options(pg, path)
        for o in sorted(opts):
            if o not in known:
                raise Fail("%s: `npusim %s` has no option %s (its --help: %s)"
                           % (where, " ".join(path), o, " ".join(sorted(set(known.values())))))
            seen.setdefault(tuple(path), set()).add(known[o])
    return 1


def synopses_complete(a, pg):
    """Every option of a command's --help is in some synopsis of it, on any page."""
    seen = {}
    for page in pages(a.source):
        for line, info, body in blocks(os.path.join(a.source, page)):
            if info == "synopsis":
                for path, opts in synopsis_entries(body):
                    known = help_options(pg, path)
                    seen.setdefault(tuple(path), set()).update(known.get(o, o) for o in opts)
    missing = []
    for path, named in sorted(seen.items()):
        for o in sorted(set(help_options(pg, list(path)).values()) - named - {"--help"}):
            missing.append("npusim %s %s" % (" ".join(path), o))
    if missing:
        raise Fail("options no synopsis names (add them to the command's synopsis):\n  " + "\n  ".join(missing))


# ---- excerpts --------------------------------------------------------------------------------

def check_excerpt(a, where, rel, body):
    path = os.path.join(a.source, rel)
    if not os.path.isfile(path):
        raise Fail("%s: excerpt of '%s', which does not exist" % (where, rel))
    src = [l.strip() for l in open(path, encoding="utf-8").read().split("\n")]
    want = [l.strip() for l in body if l.strip()]
    i = 0
    gap = False
    for w in want:
        if w == "...":
            gap = True
            continue
        try:
            j = src.index(w, i)
        except ValueError:
            raise Fail("%s: '%s' is not in %s (after line %d)" % (where, w, rel, i))
        if j != i and not gap and i > 0:
            raise Fail("%s: '%s' does not follow the line before it in %s (use '...' for a gap)" % (where, w, rel))
        i, gap = j + 1, False
    return 1


# ---- one page --------------------------------------------------------------------------------

def run_page(a):
    pg = Page(a, a.page)
    path = os.path.join(a.source, a.page)
    ran = skipped = 0
    for line, info, body in blocks(path):
        where = "%s:%d" % (a.page, line)
        first = first_line(body)
        if not_run_entry(info, body) is not None:
            if info == "text" and not MARKER.match(first) and any(re.match(r"^\s*(\$ |npusim |\./build/|npusim: )", l) for l in body):
                raise Fail("%s: a text block that holds commands or output: make it ```console or ```sh" % where)
            skipped += 1
            continue
        m = EXCERPT.match(first)
        if m:
            ran += check_excerpt(a, where, m.group(1), body[body.index(first) + 1:])
            continue
        if info in ("sh", "bash", "shell"):
            if any(l.startswith("$ ") for l in body):
                raise Fail("%s: '$ ' lines belong in a ```console block" % where)
            ran += run_sh(pg, where, body)
        elif info == "console":
            ran += run_console(pg, where, body)
        elif info == "synopsis":
            ran += check_synopsis(pg, where, body, {})
        elif info == "yaml":
            m, f = EXAMPLE.match(first), FILE_LINE.match(first)
            if m:
                name = m.group(1)
                pg.write(where, name + ".yaml", body)
                rc, out = pg.shell(where, "npusim run %s.yaml" % name)
                if rc != 0:
                    raise Fail("%s: example '%s' exits %d:\n%s" % (where, name, rc, out[-3000:]))
                ran += 1
            elif f:
                for rel, lines in file_blocks(body):
                    pg.write(where, rel, lines)
                ran += 1
            else:
                raise Fail("%s: a yaml block starts with '# example: NAME', '# file: PATH' or '# not run: WHY'" % where)
        elif info == "python":
            ran += run_python(pg, where, line, body)
        elif info in ("c++", "cpp", "c", "cmake"):
            if not FILE_LINE.match(first):
                raise Fail("%s: a %s block starts with 'file: PATH', 'excerpt of PATH' or 'not run: WHY' "
                           "as a comment" % (where, info))
            for rel, lines in file_blocks(body):
                pg.write(where, rel, lines)
            ran += 1
        else:
            raise Fail("%s: a block of '%s': say what it is (```sh, ```console, ```text, ...; tests/docs/doc_test.py)"
                       % (where, info or "no language"))
    if any(info == "synopsis" for _, info, _ in blocks(path)):
        synopses_complete(a, pg)
    print("%s: %d examples ran or were compared, %d not run" % (a.page, ran, skipped))


def file_blocks(body):
    """(path, lines) of the "file: PATH" parts of a block."""
    files, cur = [], None
    for l in body:
        f = FILE_LINE.match(l)
        if f:
            cur = (f.group(1), [])
            files.append(cur)
        elif cur is not None:
            cur[1].append(l)
    return files


def extract(a):
    """Writes the page's "file:" blocks whose path starts with --only into --work (for a build
    that uses them, e.g. the tutorial's folder inside npusim's tree)."""
    n = 0
    for line, info, body in blocks(os.path.join(a.source, a.page)):
        for rel, lines in file_blocks(body):
            if rel.startswith(a.only):
                path = os.path.join(a.work, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                text = "\n".join(lines).rstrip("\n") + "\n"
                if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
                n += 1
    if n == 0:
        raise Fail("%s: no file blocks under '%s'" % (a.page, a.only))
    print("%s: %d files extracted into %s" % (a.page, n, a.work))


# ---- links -----------------------------------------------------------------------------------

def slug(title):
    """GitHub's anchor of a heading: links keep their text, then lower case, punctuation but
    '-' and '_' dropped, spaces to '-'."""
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title.strip()).lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def anchors(path):
    out, counts = set(), {}
    in_block = False
    for l in open(path, encoding="utf-8"):
        if FENCE.match(l):
            in_block = not in_block
        if in_block:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", l)
        if m:
            s = slug(m.group(1))
            n = counts.get(s, 0)
            out.add(s if n == 0 else "%s-%d" % (s, n))
            counts[s] = n + 1
    return out


def prose(path):
    """(line number, text) of the lines outside fenced blocks, inline code removed."""
    in_block, fence = False, None
    for n, l in enumerate(open(path, encoding="utf-8"), 1):
        m = FENCE.match(l)
        if m and (not in_block or l.strip().startswith(fence)):
            in_block, fence = (not in_block), m.group(2)[:3]
            continue
        if not in_block:
            yield n, l


def check_links(a):
    errors = []
    for page in pages(a.source):
        path = os.path.join(a.source, page)
        for n, l in prose(path):
            code_free = re.sub(r"`[^`]*`", "``", l)
            for target in re.findall(r"\]\(([^)\s]+)\)", code_free):
                if re.match(r"^[a-z]+:", target):
                    continue
                file, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                if not os.path.exists(dest):
                    errors.append("%s:%d: link to '%s', which does not exist" % (page, n, target))
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    errors.append("%s:%d: link to '%s': %s has no heading '#%s'"
                                  % (page, n, target, os.path.relpath(dest, a.source), anchor))
            # A page of these docs named in prose, inline code included, is a link: outside the
            # link's text and target, no docs/x.md (from README.md) or x.md (from docs/).
            bare = re.sub(r"\[[^\]]*\]\([^)]*\)", "", l)
            for ref in re.findall(r"(?<![\w/.-])((?:docs/)?[a-z][\w-]*\.md)\b", bare):
                docs_dir = os.path.abspath(os.path.join(a.source, "docs"))
                targets = [os.path.abspath(os.path.join(os.path.dirname(path), ref)),
                           os.path.abspath(os.path.join(a.source, ref))]
                if any(os.path.exists(t) and os.path.dirname(t) == docs_dir for t in targets):
                    errors.append("%s:%d: '%s' in plain text: make it a link" % (page, n, ref))
            # A file or folder of the repository named in inline code exists (relative to the
            # root or, as in a folder's own description, to a top-level folder); globs match.
            for code in re.findall(r"`([^`]+)`", l):
                for tok in re.split(r"[\s,()]+", code):
                    tok = tok.strip(".:;")
                    if not re.match(r"^(%s)/[\w./*-]*$" % "|".join(TOP_DIRS), tok):
                        continue
                    bases = [a.source] + [os.path.join(a.source, d) for d in CODE_DIRS]
                    if not any(glob.glob(os.path.join(b, tok)) for b in bases):
                        errors.append("%s:%d: '%s' does not exist" % (page, n, tok))
    if errors:
        raise Fail("\n".join(errors))
    print("links: every link, anchor and file name of %d pages resolves" % len(pages(a.source)))


def check_not_run(a):
    found = []
    for page in pages(a.source):
        for line, info, body in blocks(os.path.join(a.source, page)):
            e = not_run_entry(info, body)
            if e is not None:
                found.append("%s: %s" % (page, e))
    listed = [l.rstrip("\n") for l in open(a.list, encoding="utf-8") if l.strip() and not l.startswith("#")]
    extra = sorted(set(found) - set(listed)) + [e for e in set(found) if found.count(e) > listed.count(e)]
    gone = sorted(set(listed) - set(found)) + [e for e in set(listed) if listed.count(e) > found.count(e) and e in found]
    if extra or gone:
        raise Fail("blocks that are not run (%d) differ from %s (%d):\n%s%s"
                   % (len(found), a.list, len(listed),
                      "".join("  not listed: %s\n" % e for e in sorted(set(extra))),
                      "".join("  listed, not found: %s\n" % e for e in sorted(set(gone)))))
    print("not run: %d blocks, as listed" % len(found))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["page", "links", "not-run", "extract"])
    ap.add_argument("page", nargs="?")
    ap.add_argument("--source", required=True)
    ap.add_argument("--build")
    ap.add_argument("--work")
    ap.add_argument("--list")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    try:
        if a.mode == "page":
            run_page(a)
        elif a.mode == "extract":
            extract(a)
        elif a.mode == "links":
            check_links(a)
        else:
            check_not_run(a)
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)


if __name__ == "__main__":
    main()

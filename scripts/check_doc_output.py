#!/usr/bin/env python3
"""Check that the command output shown in the documentation is current.

In each fenced block of the given Markdown files, a line beginning with
"$ kvbudget" is run (from the repository root, with the built command) and
the lines after it, up to the next "$ " line, are what it must print: every
shown line must appear in the real output, in the same order, so an
excerpt may leave lines out ("..." lines are skipped).  "$ echo $?" is
followed by the previous command's exit status.

    check_doc_output.py KVBUDGET_BINARY FILE.md...
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def blocks(text):
    """Yield the lines of every fenced block."""
    inside, lines = False, []
    for line in text.splitlines():
        if line.startswith("```"):
            if inside:
                yield lines
            inside, lines = not inside, []
        elif inside:
            lines.append(line)


def commands(block):
    """Yield (command, shown lines) for each "$ " line of a block."""
    cmd, shown = None, []
    for line in block:
        if line.startswith("$ "):
            if cmd is not None:
                yield cmd, shown
            cmd, shown = line[2:], []
        elif cmd is not None:
            shown.append(line)
    if cmd is not None:
        yield cmd, shown


def missing_line(shown, actual):
    """The first shown line not found, in order, in the actual output."""
    lines = actual.splitlines()
    at = 0
    for want in shown:
        if not want.strip() or want.strip() == "..." or \
                re.match(r"^\s*\[\.\.\..*\]$", want):
            continue
        while at < len(lines) and lines[at].rstrip() != want.rstrip():
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None


def check_file(binary, path):
    errors, last_status, ran = [], None, 0
    for block in blocks(path.read_text()):
        for cmd, shown in commands(block):
            if cmd.strip() == "echo $?":
                if shown and last_status is not None and \
                        shown[0].strip() != str(last_status):
                    errors.append("%s: exit status %s, shown %s"
                                  % (path.name, last_status, shown[0]))
                continue
            if not cmd.startswith("kvbudget"):
                continue
            real = re.sub(r"^kvbudget\b", binary, cmd)
            real = re.sub(r"\|\s*kvbudget\b", "| " + binary, real)
            r = subprocess.run(["sh", "-c", real], cwd=ROOT,
                               capture_output=True, text=True,
                               env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
            last_status, ran = r.returncode, ran + 1
            gone = missing_line(shown, r.stdout + r.stderr)
            if gone is not None:
                errors.append("%s: `%s` no longer prints:\n    %s"
                              % (path.name, cmd, gone))
    return errors, ran


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    binary = str(Path(sys.argv[1]).resolve())
    errors, ran = [], 0
    for name in sys.argv[2:]:
        e, n = check_file(binary, ROOT / name)
        errors += e
        ran += n
    for e in errors:
        print(e)
    print("%d documented commands run, %d out of date" % (ran, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

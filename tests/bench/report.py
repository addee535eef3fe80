#!/usr/bin/python3
"""report.py BENCH-LOG OUTDIR: the figures of a run-bench.sh log that carry a
target, as a Markdown report (OUTDIR/report.md) and a data file for
gnuplot (OUTDIR/ratios.dat: name, value over target)."""
import datetime
import os
import platform
import re
import subprocess
import sys

log, out = sys.argv[1], sys.argv[2]
text = open(log).read()
# "NAME: VALUE ... (target <= N" or "NAME VALUE ... (target < N"
FIGURE = re.compile(r"([A-Za-z][A-Za-z0-9/_ .-]*?):? ([0-9]+(?:\.[0-9]+)?)[^;()\n]*"
                    r"\(target (<=|<) ([0-9]+(?:\.[0-9]+)?)")
rows, section = [], ""
for line in text.splitlines():
    if line.startswith("== "):
        section = line[3:]
        continue
    # A benchmark that stopped short measured nothing: a target not met.
    if line.startswith("Bail out!"):
        rows.append((section, "bailed out: " + line[9:].strip(), float("nan"), "<=", 0, False))
        continue
    for m in FIGURE.finditer(line):
        name, value, op, target = m.group(1).strip(), float(m.group(2)), m.group(3), float(m.group(4))
        met = value <= target if op == "<=" else value < target
        rows.append((section, name, value, op, target, met))


def machine():
    cpu = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = open("/proc/meminfo").readline().split()[1]
    rev = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe",
                          "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
    return ["- kernel: %s %s" % (platform.system(), platform.release()),
            "- CPUs: %d x %s" % (os.cpu_count(), cpu),
            "- memory: %d MB" % (int(mem) // 1024),
            "- clustermon: %s" % (rev or "not a git checkout"),
            "- run: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M")]


lines = ["# clustermon benchmark report", "", *machine(), "",
         "Each figure next to its baseline from the same run (see the log below);",
         "ratios.png plots each value over its target (1 = the target).", "",
         "| section | figure | value | target | met |", "|---|---|---|---|---|"]
for section, name, value, op, target, met in rows:
    lines.append("| %s | %s | %g | %s %g | %s |" % (section, name, value, op, target,
                                                 "yes" if met else "**no**"))
lines += ["", "%d of %d figures met their targets." % (sum(r[5] for r in rows), len(rows)), "",
          "## Output", "", "```", text.rstrip(), "```", ""]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines))
with open(os.path.join(out, "ratios.dat"), "w") as f:
    for i, (section, name, value, op, target, met) in enumerate(rows):
        label = name.replace(" ", "_").replace('"', "")[:28]
        f.write('%d "%s" %g\n' % (i, label, value / target if target and value == value else 0))
print("%d of %d figures met their targets" % (sum(r[5] for r in rows), len(rows)))
sys.exit(0 if rows else 1)

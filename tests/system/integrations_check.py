#!/usr/bin/python3
"""integrations_check.py - the Cacti, Zabbix and LibreNMS files parse, and
every CLUSTER-MON-MIB OID and object name they hold is one the MIB defines
(an OID may go on with an instance: .0, a number, or a template macro).

usage: integrations_check.py MIB-OBJECTS-FILE FIRST-TEST-NUMBER FILE...
MIB-OBJECTS-FILE is `snmptranslate -Tz -m CLUSTER-MON-MIB` output."""
import re
import sys
import xml.etree.ElementTree as ET

import yaml

objects_file, n, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names, oids = {}, {}
for line in open(objects_file):
    m = re.match(r'"(\w+)"\s+"([\d.]+)"', line)
    if m:
        names[m.group(1)] = m.group(2)
        oids[m.group(2)] = m.group(1)
BASE = "1.3.6.1.4.1.8072.9999.77"
failed = 0


def tap(ok, what, detail=""):
    global n, failed
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))
    if not ok:
        failed += 1
        for line in detail.splitlines()[:15]:
            print("# " + line)
    n += 1


# Leaves (scalars and columns) are the only objects with instances.
leaves = {o for o in oids if not any(p.startswith(o + ".") for p in oids)}


def defined(oid):
    """The object an OID names: any node of the MIB (a subtree to walk), or
    a scalar or column followed by an instance (.0, numbers, a macro)."""
    if oid in oids:
        return oids[oid]
    parts = oid.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:cut])
        if head in oids:
            rest = parts[cut:]
            if head in leaves and all(
                    re.fullmatch(r"\d+|\{[#$]?\w+\}|\{\{ \$index \}\}", r) for r in rest):
                return oids[head]
            return None
    return None


for path in files:
    text = open(path).read()
    try:
        if path.endswith(".xml"):
            ET.fromstring(text)
        else:
            yaml.safe_load(text)
        parsed = True
    except Exception as e:
        parsed = False
        tap(False, "%s parses" % path, str(e))
    if parsed:
        tap(True, "%s is well-formed" % path.split("/")[-1])
    bad = []
    # Zabbix writes trap OIDs as regexes (1\.3\.6...): read them as OIDs.
    plain = text.replace("\\.", ".")
    found = re.findall(r"\.?(" + re.escape(BASE) +
                       r"(?:\.(?:\d+|\{\{ \$index \}\}|\{[^}]*\}))*)", plain)
    for oid in found:
        if oid.startswith(BASE + ".0."):          # notifications
            if oid not in oids:
                bad.append(oid)
        elif defined(oid) is None:
            bad.append(oid)
    for name in set(re.findall(r"\b(clusterMon[A-Za-z0-9]+)\b", text)):
        if name not in names:
            bad.append(name)
    tap(not bad and (found or "clusterMon" in text),
        "%s names only objects CLUSTER-MON-MIB defines (%d OIDs)" % (path.split("/")[-1], len(found)),
        "\n".join(sorted(set(bad))))
sys.exit(1 if failed else 0)

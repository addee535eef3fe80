#!/usr/bin/python3
"""integrations_check.py - the Cacti, Zabbix and LibreNMS files parse, and
every CLUSTER-MON-MIB OID and object name they hold is one the MIB defines
(an OID may go on with an instance: .0, a number, or a template macro).

A Cacti template export (a <cacti> file) gets three more tests: every hash
it references is exported in it; its data queries are contrib's data-query
files (path, name, description, output fields); and every data source it
polls has the RRD type its MIB object's SYNTAX calls for, hundredths are
divided by 100 in the graphs, and "Linux by clustermon" graphs what issue 7
asks for (CPU per core, memory, TCP retransmits, P50/P90/P99).

usage: integrations_check.py MIB-OBJECTS-FILE FIRST-TEST-NUMBER FILE...
MIB-OBJECTS-FILE is `snmptranslate -Tz -m CLUSTER-MON-MIB` output; the
SYNTAX of objects is read from mibs/CLUSTER-MON-MIB.txt (or $CLUSTER_MON_MIB)."""
import os
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


mib_file = os.environ.get("CLUSTER_MON_MIB") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "mibs", "CLUSTER-MON-MIB.txt")
SYNTAX = dict(re.findall(r"^(\w+)\s+OBJECT-TYPE\s+SYNTAX\s+([\w-]+)", open(mib_file).read(), re.M))
COUNTERS = {"Counter32", "Counter64"}
# Cacti's data source types: GAUGE 1, COUNTER 2, DERIVE 3, DCOUNTER 6, DDERIVE 7.
COUNTER_TYPES, GAUGE_TYPES = {"2", "3", "6", "7"}, {"1"}
SNMP_INDEXED = "bf566c869ac6443b0c75d1c32b5a350e"   # Get SNMP Data (Indexed)
HASH = re.compile(r"hash_[0-9a-f]{38}")


def txt(el, tag):
    v = el.find(tag)
    return (v.text or "") if v is not None else ""


def cdef_string(cdef):
    """A CDEF export's items as RPN: CURRENT_DATA_SOURCE,100,/"""
    out = []
    for it in sorted(cdef.find("items"), key=lambda i: int(txt(i, "sequence"))):
        t, v = txt(it, "type"), txt(it, "value")
        out.append("+-*/%"[int(v) - 1] if t == "2" else v)
    return ",".join(out)


def query_file(dir_, xml_path):
    """The <interface> of a data query's xml_path, looked up next to the template."""
    f = os.path.join(dir_, os.path.basename(xml_path))
    return ET.parse(f).getroot() if os.path.exists(f) else None


def cacti_template(path, root):
    name = path.split("/")[-1]
    top = {el.tag: el for el in root}
    # hash_TTVVVV<32 hex>: type, version, the object's hash. Cacti resolves a
    # reference by the 32 hex digits alone (graph inputs name their items
    # with the graph template's type).
    exported = {el.tag[-32:] for el in root.iter() if HASH.fullmatch(el.tag)}
    refs = {h[-32:] for el in root.iter() for h in HASH.findall(el.text or "")}
    missing = sorted(refs - exported)
    tap(not missing and refs, "%s: the %d hashes it references are all exported in it" % (name, len(refs)),
        "\n".join("not exported: " + h for h in missing))

    def kind(k):   # top-level elements of a type: 00 graph template, 01 data template, ...
        return [el for tag, el in top.items() if tag[5:7] == k]

    # data input fields by hash, and the data template item (hash_08) -> (template, item)
    field_name = {f.tag: txt(f, "data_name") for m in kind("03") for f in m.find("fields")}
    dt_item = {it.tag: (dt, it) for dt in kind("01") for it in dt.find("items")}

    # 2: data queries are contrib's files
    bad = []
    polled = {}    # data template item hash -> MIB object name
    dir_ = os.path.dirname(path)
    for dq in kind("04"):
        xml_path = txt(dq, "xml_path")
        iface = query_file(dir_, xml_path)
        if not xml_path.startswith("<path_cacti>/resource/snmp_queries/") or iface is None:
            bad.append("%s: xml_path %s is not a contrib/cacti data query" % (txt(dq, "name"), xml_path))
            continue
        qf = os.path.basename(xml_path)
        for tag in ("name", "description"):
            if txt(dq, tag) != txt(iface, tag):
                bad.append("%s: %s '%s' is not %s's '%s'" % (qf, tag, txt(dq, tag), qf, txt(iface, tag)))
        if not txt(dq, "data_input_id").endswith(SNMP_INDEXED):
            bad.append("%s: data input method is not Get SNMP Data (Indexed)" % qf)
        outputs = {f.tag: txt(f, "oid") for f in iface.find("fields") if txt(f, "direction") == "output"}
        for g in dq.find("graphs"):
            gt = top.get(txt(g, "graph_template_id"))
            used = {txt(it, "task_item_id") for it in gt.find("items")} if gt is not None else set()
            for m in g.find("rrd"):
                field, dt, rrd = txt(m, "snmp_field_name"), txt(m, "data_template_id"), txt(m, "data_template_rrd_id")
                if field not in outputs:
                    bad.append("%s: %s is not an output field of %s" % (txt(g, "name"), field, qf))
                elif rrd not in dt_item or dt_item[rrd][0].tag != dt:
                    bad.append("%s: %s maps to a data source not in its data template" % (txt(g, "name"), field))
                elif rrd not in used:
                    bad.append("%s: %s is not drawn by the graph template" % (txt(g, "name"), field))
                else:
                    polled[rrd] = defined(outputs[field].lstrip("."))
    tap(not bad and kind("04"), "%s: its %d data queries are contrib's data-query files" % (name, len(kind("04"))),
        "\n".join(bad))

    # 3: every SNMP data source has the type its SYNTAX calls for; hundredths / 100
    bad = []
    for dt in kind("01"):
        oid = [txt(d, "value") for d in dt.find("data") if field_name.get(txt(d, "data_input_field_id")) == "oid"]
        if oid:
            obj = defined(oid[0].lstrip("."))
            parent = oids.get(oid[0].lstrip(".").rsplit(".", 2)[0], "")
            if obj is None or not oid[0].endswith(".0") or parent.endswith("Entry"):
                bad.append("%s: %s is not a scalar instance" % (txt(dt, "name"), oid[0]))
                continue
            for it in dt.find("items"):
                polled[it.tag] = obj
    for rrd, obj in polled.items():
        dt, it = dt_item[rrd]
        want = COUNTER_TYPES if SYNTAX.get(obj) in COUNTERS else GAUGE_TYPES
        if txt(it, "data_source_type_id") not in want:
            bad.append("%s [%s]: type %s, but %s is %s" % (txt(dt, "name"), txt(it, "data_source_name"),
                       txt(it, "data_source_type_id"), obj, SYNTAX.get(obj)))
    for gt in kind("00"):
        for it in gt.find("items"):
            obj = polled.get(txt(it, "task_item_id"))
            if SYNTAX.get(obj) == "ClusterMonHundredths":
                cdef = top.get(txt(it, "cdef_id"))
                if cdef is None or cdef_string(cdef) != "CURRENT_DATA_SOURCE,100,/":
                    bad.append("%s: %s drawn without the CURRENT_DATA_SOURCE,100,/ CDEF" % (txt(gt, "name"), obj))
    for ht in kind("02"):
        if txt(ht, "name") != "Linux by clustermon":
            continue
        graphed = set()
        for h in txt(ht, "graph_templates").split("|"):
            graphed |= {polled.get(txt(it, "task_item_id")) for it in top[h].find("items")} if h in top else set()
        for h in txt(ht, "data_queries").split("|"):
            for g in (top[h].find("graphs") if h in top else []):
                graphed |= {polled.get(txt(m, "data_template_rrd_id")) for m in g.find("rrd")}
        want = {"clusterMonCpuUtil", "clusterMonMemTotalKB", "clusterMonMemAvailableKB", "clusterMonMemCachedKB",
                "clusterMonTcpRetransSegs", "clusterMonHistSourceP50", "clusterMonHistSourceP90", "clusterMonHistSourceP99"}
        if want - graphed:
            bad.append("Linux by clustermon does not graph " + ", ".join(sorted(want - graphed)))
    tap(not bad and polled, "%s: its %d SNMP data sources have the RRD type of their MIB SYNTAX, hundredths /100"
        % (name, len(polled)), "\n".join(dict.fromkeys(bad)))


for path in files:
    text = open(path).read()
    try:
        if path.endswith(".xml"):
            root = ET.fromstring(text)
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
    if text.startswith("<cacti>"):          # a Cacti template export: 3 more
        first = n
        try:
            cacti_template(path, root)
        except Exception as e:
            while n < first + 3:
                tap(False, "%s: Cacti template check" % path.split("/")[-1], repr(e))
sys.exit(1 if failed else 0)

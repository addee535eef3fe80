#!/usr/bin/python3
"""pysnmp_walk.py - walk CLUSTER-MON-MIB with a second SNMP stack (pysnmp)
and with net-snmp's tools, and compare what they got, as TAP lines.

usage: pysnmp_walk.py HOST PORT ROOT-OID V3-USER V3-AUTH V3-PRIV FIRST-TEST-NUMBER

Both stacks walk with GETNEXT and GETBULK, over v2c and v3 authPriv; every
walk must list the same instances with the same ASN.1 types, and values
that do not move between walks (strings, object identifiers, integers,
the bucket edges of the histogram table) must be equal byte for byte.
"""
import subprocess
import sys

from pysnmp.hlapi import (CommunityData, ContextData, ObjectIdentity, ObjectType,
                          SnmpEngine, UdpTransportTarget, UsmUserData, bulkCmd, nextCmd,
                          usmAesCfb128Protocol, usmHMAC192SHA256AuthProtocol)
from pysnmp.proto import rfc1902, rfc1905

HOST, PORT, ROOT, USER, AUTH, PRIV = sys.argv[1:7]
n = int(sys.argv[7])
failed = 0

# Types by name, as both stacks name them.
PYSNMP_TYPES = {
    rfc1902.OctetString: "STRING", rfc1902.Integer32: "INTEGER", rfc1902.Integer: "INTEGER",
    rfc1902.Gauge32: "Gauge32", rfc1902.Unsigned32: "Gauge32", rfc1902.Counter32: "Counter32",
    rfc1902.Counter64: "Counter64", rfc1902.TimeTicks: "Timeticks",
    rfc1902.ObjectIdentifier: "OID", rfc1902.IpAddress: "IpAddress",
}
NETSNMP_TYPES = {"STRING": "STRING", "Hex-STRING": "STRING", "INTEGER": "INTEGER",
                 "Gauge32": "Gauge32", "Counter32": "Counter32", "Counter64": "Counter64",
                 "Timeticks": "Timeticks", "OID": "OID", "IpAddress": "IpAddress"}
# Values compared: these types, and the bucket edges (.9.2.1.2/.3), which
# hold the largest Counter64 values served (2^64-1).
STABLE_TYPES = {"STRING", "OID", "INTEGER"}
# A process's state may change between walks, and so may who is at which
# rank of the top tables (clusterMonProcTopTable, clusterMonCgroupTopTable),
# and whether a source samples (clusterMonSourceState: a walk wakes sources).
MOVING = [ROOT + ".5.1.1.3.", ROOT + ".5.8.", ROOT + ".13.3.", ROOT + ".2.1.1.9."]
# Logs (clusterMonExit's tables, clusterMonCgroupEndTable) gain rows between
# two walks (anything that exits on the machine) and age them out: only the
# rows both walks saw are compared, and those never change.
LOGS = [ROOT + ".15.", ROOT + ".13.5."]
BUCKET_EDGES = [ROOT + ".9.2.1.2.", ROOT + ".9.2.1.3."]


def tap(ok, what, detail=""):
    global n, failed
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))
    if not ok:
        failed += 1
        for line in detail.splitlines()[:20]:
            print("# " + line)
    n += 1


def pysnmp_value(v):
    t = PYSNMP_TYPES.get(type(v))
    if t is None:
        for cls, name in PYSNMP_TYPES.items():
            if isinstance(v, cls):
                t = name
                break
    if t == "STRING":
        return t, bytes(v).hex()
    if t == "OID":
        return t, str(v)
    return t, str(int(v))


def pysnmp_walk(v3, bulk):
    auth = (UsmUserData(USER, AUTH, PRIV, authProtocol=usmHMAC192SHA256AuthProtocol,
                        privProtocol=usmAesCfb128Protocol) if v3 else CommunityData("public"))
    args = (SnmpEngine(), auth, UdpTransportTarget((HOST, int(PORT)), timeout=3, retries=1),
            ContextData())
    obj = ObjectType(ObjectIdentity(ROOT))
    gen = (bulkCmd(*args, 0, 25, obj, lexicographicMode=False, lookupMib=False) if bulk
           else nextCmd(*args, obj, lexicographicMode=False, lookupMib=False))
    out = {}
    for err_ind, err_stat, _, binds in gen:
        if err_ind or err_stat:
            raise RuntimeError("pysnmp: %s %s" % (err_ind, err_stat.prettyPrint()))
        for name, val in binds:
            # pysnmp's bulkCmd yields its own end marker (the last name with
            # endOfMibView) when a response ends just past the subtree, and
            # turns a noSuch* from the agent into the same: either way the
            # walk ends here, and a short walk shows in the comparison.
            if isinstance(val, rfc1905.EndOfMibView):
                return out
            out[str(name)] = pysnmp_value(val)
    return out


def netsnmp_walk(v3, bulk):
    cmd = ["snmpbulkwalk" if bulk else "snmpwalk", "-On", "-Oe", "-Ox", "-t", "3",
           "-r", "1"]
    cmd += (["-v3", "-l", "authPriv", "-u", USER, "-a", "SHA-256", "-A", AUTH, "-x", "AES",
             "-X", PRIV] if v3 else ["-v2c", "-c", "public"])
    text = subprocess.run(cmd + ["%s:%s" % (HOST, PORT), ROOT], capture_output=True,
                          text=True, env={"MIBS": "", "PATH": "/usr/bin:/bin"}).stdout
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith(".") and " = " in line:
            name, rest = line[1:].split(" = ", 1)
            if rest == '""':        # an empty string has no type word (-Ox)
                out[name] = ["STRING", ""]
                continue
            t, _, v = rest.partition(": ")
            out[name] = [NETSNMP_TYPES.get(t, t), v.strip()]
        elif name is not None:      # a long Hex-STRING goes on over lines
            out[name][1] += " " + line.strip()
    for name, (t, v) in out.items():
        if t == "STRING":
            v = v.replace(" ", "").lower() if v else ""
        elif t == "OID":
            v = v.lstrip(".")
        elif t == "Timeticks":      # "(43) 0:00:00.43"
            v = v[1:v.index(")")] if v.startswith("(") else v
        out[name] = (t, v)
    return out


def differences(a, b, a_name, b_name):
    lines = []
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            if any(name.startswith(g) for g in LOGS):
                continue
            lines.append("%s only in %s" % (name, a_name if name in a else b_name))
            continue
        (ta, va), (tb, vb) = a[name], b[name]
        stable = (ta in STABLE_TYPES and not any(name.startswith(m) for m in MOVING)) or \
            any(name.startswith(e) for e in BUCKET_EDGES)
        if ta != tb or (stable and va != vb):
            lines.append("%s: %s %s (%s) vs %s %s (%s)" % (name, ta, va, a_name, tb, vb, b_name))
    return lines


ref = netsnmp_walk(False, False)
tap(len(ref) > 100, "net-snmp's snmpwalk sees the MIB (%d instances)" % len(ref))
for v3 in (False, True):
    for bulk in (False, True):
        label = "%s %s" % ("v3 authPriv" if v3 else "v2c", "GETBULK" if bulk else "GETNEXT")
        try:
            ours = pysnmp_walk(v3, bulk)
        except Exception as e:  # the walk itself failed: that is the finding
            tap(False, "pysnmp %s walks the MIB" % label, str(e))
            tap(False, "net-snmp %s agrees too (not compared)" % label)
            continue
        diff = differences(ours, ref, "pysnmp " + label, "net-snmp snmpwalk")
        tap(not diff, "pysnmp %s: same %d instances, types and stable values as net-snmp"
            % (label, len(ours)), "\n".join(diff))
        other = netsnmp_walk(v3, bulk)
        diff = differences(other, ref, "net-snmp " + label, "net-snmp snmpwalk v2c")
        tap(not diff, "net-snmp %s agrees too (%d instances)" % (label, len(other)),
            "\n".join(diff))

# Past the end of everything the master serves: both stacks see endOfMibView
# (pysnmp's walk then ends without a row).
end = True
for err_ind, err_stat, _, binds in nextCmd(
        SnmpEngine(), CommunityData("public"), UdpTransportTarget((HOST, int(PORT))),
        ContextData(), ObjectType(ObjectIdentity("1.3.6.1.6.3.99.99")),
        lexicographicMode=True, lookupMib=False, maxRows=1):
    end = not err_ind and not err_stat and (
        not binds or isinstance(binds[0][1], rfc1905.EndOfMibView))
    break
text = subprocess.run(["snmpgetnext", "-v2c", "-c", "public", "-On", "%s:%s" % (HOST, PORT),
                       "1.3.6.1.6.3.99.99"], capture_output=True, text=True,
                      env={"MIBS": "", "PATH": "/usr/bin:/bin"}).stdout
tap(end and "No more variables left in this MIB View" in text,
    "past the end both see endOfMibView", text)
sys.exit(1 if failed else 0)

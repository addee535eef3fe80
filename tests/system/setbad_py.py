#!/usr/bin/python3
"""setbad_py.py HOST PORT ROOT FIRST-TEST: SETs no snmpset can send (NULL
values) and oversize strings to every writable column; each must get its
error status. Prints TAP lines."""
import sys

from pyasn1.type.univ import Null
from pysnmp.hlapi import (CommunityData, ContextData, ObjectIdentity, ObjectType, SnmpEngine,
                          UdpTransportTarget, setCmd)
from pysnmp.proto.rfc1902 import Integer32, OctetString, Unsigned32

host, port, cm, n = sys.argv[1], int(sys.argv[2]), sys.argv[3].lstrip("."), int(sys.argv[4])
failed = 0


def status(oid, value):
    err_ind, err_stat, _, _ = next(setCmd(
        SnmpEngine(), CommunityData("private"), UdpTransportTarget((host, port), timeout=2,
                                                                   retries=1),
        ContextData(), ObjectType(ObjectIdentity(cm + oid), value)))
    if err_ind:
        return str(err_ind)
    return err_stat.prettyPrint() if int(err_stat) else "noError"


cases = [
    ("clusterMonSourceIntervalMs.1 = NULL", ".2.1.1.3.1", Null(""), "wrongType"),
    ("clusterMonSourceIntervalMs.1 = a string", ".2.1.1.3.1", OctetString("100"), "wrongType"),
    ("clusterMonSourceIntervalMs.1 = 5", ".2.1.1.3.1", Unsigned32(5), "wrongValue"),
    ("clusterMonProcFilterName.0 = NULL", ".5.2.0", Null(""), "wrongType"),
    ("clusterMonProcFilterName.0 = 300 characters", ".5.2.0", OctetString("x" * 300), "wrongLength"),
    ("clusterMonProcFilterTopN.0 = NULL", ".5.4.0", Null(""), "wrongType"),
    ("clusterMonProbeSpec.7 = NULL", ".8.1.1.2.7", Null(""), "wrongType"),
    ("clusterMonProbeSpec.7 = 201 characters", ".8.1.1.2.7", OctetString("t" * 201), "wrongLength"),
    ("clusterMonProbeFilterPid.7 = NULL", ".8.1.1.3.7", Null(""), "wrongType"),
    ("clusterMonProbeRowStatus.7 = NULL", ".8.1.1.12.7", Null(""), "wrongType"),
    ("clusterMonProbeRowStatus.7 = 3 (notReady is not settable)", ".8.1.1.12.7", Integer32(3), "wrongValue"),
    ("clusterMonThresholdVariable.7 = NULL", ".11.1.1.2.7", Null(""), "wrongType"),
    ("clusterMonThresholdOwner.7 = 200 characters", ".11.1.1.12.7", OctetString("o" * 200), "wrongLength"),
    ("clusterMonHistoryCtlIntervalMs.7 = NULL", ".10.1.1.3.7", Null(""), "wrongType"),
    ("clusterMonHistoryCtlOwner.7 = 200 characters", ".10.1.1.6.7", OctetString("o" * 200), "wrongLength"),
]
for what, oid, value, want in cases:
    got = status(oid, value)
    ok = got == want
    print(("ok" if ok else "not ok") + " %d - %s is %s" % (n, what, want))
    if not ok:
        print("# got %s" % got)
        failed += 1
    n += 1
sys.exit(1 if failed else 0)

#!/bin/bash
# proc10k-timing.sh - proc10k.sh with its one-second judgement of how soon a
# new process has its row, fed by the helper and by the scanner over 10,000
# processes: a judgement of real time, so `make check-timing` runs it, not
# `make check` (issue 35).
NEW_MS=1000 exec "$(dirname "$0")/proc10k.sh" "$@"

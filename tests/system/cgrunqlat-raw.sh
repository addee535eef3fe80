#!/bin/bash
# cgrunqlat-raw.sh - cgrunqlat.sh with the helper on raw tracepoints (-r):
# the per-cgroup sums then live in the LRU hash keyed by cgroup id, as on a
# kernel without cgroup storage (Debian 12's 6.1), and clustermond reads
# them by batch lookup instead of through the cgroup iterator.
CGRQ_HELPER_ARGS=-r exec "$(dirname "$0")/cgrunqlat.sh"

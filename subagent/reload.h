/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * reload.h - reading the configuration, at start-up and on SIGHUP, as one
 * ordered sequence (see reload.c).
 */
#ifndef CLUSTERMON_RELOAD_H
#define CLUSTERMON_RELOAD_H

/* Registers the directives (conf_init) and the read hooks, where conf_init
 * was called before: after init_agent, before the MIB groups and
 * init_snmp. */
void reload_init(void);

#endif

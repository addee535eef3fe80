/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * privdrop.c - start as root to open what only root may open, then run as an
 * ordinary user. Files and counters opened before the drop stay readable
 * through their fds, so the steady state needs few or no capabilities.
 */
#include "privdrop.h"
#include "common/number.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* named: the user has an entry in the passwd database (its groups apply). */
static int lookup_user(const char *user, uid_t *uid, gid_t *gid, int *named)
{
	struct passwd *pw = getpwnam(user);
	uint32_t n;

	*named = pw != NULL;
	if (pw != NULL) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		return 0;
	}
	if (num_parse_u32(user, UINT32_MAX, &n) != NUM_OK)
		return -1;
	*uid = (uid_t)n;
	*gid = (gid_t)n;
	return 0;
}

static int keep_only(const cap_value_t *keep, size_t nkeep)
{
	cap_t caps = cap_init();
	int rc = -1;

	if (caps == NULL)
		return -1;
	if (nkeep == 0 ||
	    (cap_set_flag(caps, CAP_PERMITTED, (int)nkeep, keep, CAP_SET) == 0 &&
	     cap_set_flag(caps, CAP_EFFECTIVE, (int)nkeep, keep, CAP_SET) == 0))
		rc = cap_set_proc(caps);
	cap_free(caps);
	return rc;
}

int privdrop(const char *user, const cap_value_t *keep, size_t nkeep, char *err, size_t errlen)
{
	uid_t uid;
	gid_t gid;
	int named, groups;

	if (lookup_user(user, &uid, &gid, &named) != 0) {
		snprintf(err, errlen, "unknown user '%s'", user);
		return -1;
	}
	/* The user's own supplementary groups, root's dropped: membership of
	 * the AgentX socket's group (Debian-snmp, sysusers.d) is what lets
	 * clustermond reconnect after the master restarts, when it no longer
	 * runs as root. A bare uid has no groups. */
	groups = named ? initgroups(user, gid) : setgroups(0, NULL);
	/* KEEPCAPS carries the permitted set across setuid; we trim it next. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || groups != 0 ||
	    setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
		snprintf(err, errlen, "cannot become '%s': %s", user, strerror(errno));
		return -1;
	}
	if (keep_only(keep, nkeep) != 0 || prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errlen, "cannot limit capabilities: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* range.c - parse and apply Monitoring Plugins ranges. */
#include "range.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int number(const char *s, size_t len, double *out)
{
	char buf[48], *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return errno == 0 && *end == '\0' && isfinite(*out) ? 0 : -1;
}

int range_parse(const char *text, struct range *r, char *why, size_t whylen)
{
	const char *p = text, *colon;

	memset(r, 0, sizeof(*r));
	if (text == NULL || *text == '\0' || strlen(text) >= sizeof(r->text)) {
		snprintf(why, whylen, "empty or overlong range");
		return -1;
	}
	strcpy(r->text, text);
	if (*p == '@') {
		r->inside = true;
		p++;
	}
	colon = strchr(p, ':');
	if (colon == NULL) {               /* "N": 0..N */
		r->low = 0;
		if (number(p, strlen(p), &r->high) != 0)
			goto bad;
	} else {
		if (colon == p + 1 && *p == '~')
			r->low_inf = true;
		else if (number(p, (size_t)(colon - p), &r->low) != 0)
			goto bad;
		if (colon[1] == '\0')
			r->high_inf = true;
		else if (number(colon + 1, strlen(colon + 1), &r->high) != 0)
			goto bad;
	}
	if (!r->low_inf && !r->high_inf && r->low > r->high) {
		snprintf(why, whylen, "range '%s': start is above end", text);
		return -1;
	}
	r->set = true;
	return 0;
bad:
	snprintf(why, whylen, "range '%s' is not N, N:, ~:N, N:M or @N:M", text);
	return -1;
}

bool range_alerts(const struct range *r, double value)
{
	bool within;

	if (!r->set)
		return false;
	within = (r->low_inf || value >= r->low) && (r->high_inf || value <= r->high);
	return r->inside ? within : !within;
}

enum plugin_state range_state(const struct range *w, const struct range *c, double value)
{
	if (range_alerts(c, value))
		return STATE_CRITICAL;
	if (range_alerts(w, value))
		return STATE_WARNING;
	return STATE_OK;
}

const char *state_name(enum plugin_state s)
{
	static const char *const names[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };

	return s <= STATE_UNKNOWN ? names[s] : "UNKNOWN";
}

// SPDX-License-Identifier: GPL-2.0
/*
 * What each way of failing to read or write a level (enum lvl_stage) says on
 * stderr for a command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "perfns.h"

/* "the user namespace of pid 42", "your user namespace" */
static const char *ns_article(const struct userns *ns)
{
	return strncmp(ns->name, "your ", 5) ? "the " : "";
}

/*
 * Says on stderr why @op on @ns did not work, naming the namespace and the
 * cause. Returns EXIT_FAIL (EXIT_OK for LVL_OK).
 */
int report_level_error(const struct userns *ns, const struct lvl_result *res,
		       const struct lvl_op *op)
{
	const char *what = ns->name, *art = ns_article(ns);
	const char *err = strerror(res->err);
	bool initial = userns_is_initial(ns);
	const char *path = res->on_floor ? FLOOR_PATH :
			   res->write && !initial ? USERNS_PARANOID_PATH :
			   PARANOID_PATH;
	int wanted = res->on_floor ? op->floor : op->level;
	bool denied = res->err == EACCES || res->err == EPERM;

	switch (res->stage) {
	case LVL_OK:
	case LVL_NSTAGES:
		return EXIT_OK;
	case LVL_SETNS:
		if (res->err == EPERM)
			msg("need CAP_SYS_ADMIN over %s%s (setns: %s; %s)",
			    art, what, err, have_cap_sys_admin() ?
			    "it is not below your own user namespace" :
			    "you have no CAP_SYS_ADMIN and do not own it");
		else
			msg("cannot enter %s%s: setns: %s", art, what, err);
		break;
	case LVL_OPEN:
		if (res->write && denied && res->on_floor)
			msg("need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor (cannot open %s for writing: %s)",
			    path, err);
		else if (res->write && denied && initial)
			msg("need uid 0 in the initial user namespace to set its level (cannot open %s for writing: %s)",
			    path, err);
		else if (res->write && denied)
			msg("need CAP_SYS_ADMIN over %s%s (cannot open %s for writing: %s)",
			    art, what, path, err);
		else if (res->err == ENOENT)
			msg("%s has no %s: is /proc mounted, are perf events enabled in this kernel?",
			    what, path);
		else
			msg("cannot open %s in %s%s: %s", path, art, what, err);
		break;
	case LVL_READ:
		msg("cannot read the %s of %s%s: %s",
		    res->on_floor ? "floor" : "level", art, what, err);
		break;
	case LVL_WRITE:
		if (denied && res->on_floor)
			msg("need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor (write: %s)",
			    err);
		else if (res->err == EPERM && !res->on_floor &&
			 res->have_level && wanted < res->level)
			msg("%s is at %d; a namespace's level can only be raised",
			    what, res->level);
		else if (res->err == EPERM || res->err == EACCES)
			msg("need CAP_SYS_ADMIN over %s%s (write: %s)", art,
			    what, err);
		else
			msg("the kernel refused %s %d for %s%s: %s",
			    res->on_floor ? "floor" : "level", wanted, art,
			    what, err);
		break;
	case LVL_GLOBAL:
		msg("%s", NOT_PER_NS_MSG);
		break;
	case LVL_UNSURE:
		msg("cannot tell whether this kernel has a per-namespace perf_event_paranoid (%s: %s); refusing to change it",
		    USERNS_PARANOID_PATH, err);
		break;
	case LVL_NOFLOOR:
		msg("%s; nothing changed", NO_FLOOR_MSG);
		break;
	case LVL_TIMEOUT:
		msg("no answer within %d s from the child that entered %s%s (stopped or stalled: whoever holds CAP_KILL in that namespace can stop it); killed it. %s",
		    op_timeout_s, art, what, res->write ?
		    "The write may or may not have happened: check with perfns get" :
		    "Nothing was read");
		break;
	case LVL_CHILD:
		msg("the child that entered %s%s ended without a valid answer (%s%s); %s",
		    art, what, res->err ? "killed by signal: " : "it exited",
		    res->err ? strsignal(res->err) : "", res->write ?
		    "the write may or may not have happened: check with perfns get" :
		    "nothing was read");
		break;
	case LVL_SKIPPED:
		msg("did not try %s%s: reading a namespace above it failed",
		    art, what);
		break;
	case LVL_INTERNAL:
		msg("cannot reach %s%s: %s", art, what, err);
		break;
	}
	return EXIT_FAIL;
}

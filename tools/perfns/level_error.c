// SPDX-License-Identifier: GPL-2.0
/*
 * What each way of failing to read or write a level (enum lvl_stage) says,
 * in one table for every command: the sentence a command prints on stderr,
 * and the words in the level column of perfns tree.
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
 * Why @res failed, written into @buf (@len bytes). With @ns, the sentence
 * a command prints: it names @ns and the cause, and @op says what was
 * asked for. Without @ns (and @op), what the level column of perfns tree
 * says, in the row of the namespace. Returns @buf, or NULL for LVL_OK.
 */
const char *level_error_text(const struct lvl_result *res,
			     const struct lvl_op *op, const struct userns *ns,
			     char *buf, size_t len)
{
	const char *article = ns ? ns_article(ns) : "";
	const char *what = ns ? ns->name : "";
	const char *err = strerror(res->err);
	bool initial = ns && userns_is_initial(ns);
	const char *path = res->on_floor ? FLOOR_PATH :
			   res->write && !initial ? USERNS_PARANOID_PATH :
			   PARANOID_PATH;
	int wanted = !op ? 0 : res->on_floor ? op->floor : op->level;
	bool denied = res->err == EACCES || res->err == EPERM;

	switch (res->stage) {
	case LVL_OK:
		return NULL;
	case LVL_NSTAGES:	/* no result holds it */
		if (!ns)
			break;
		return NULL;
	case LVL_SETNS:
		if (!ns && res->err == EPERM)
			snprintf(buf, len,
				 "not visible (need CAP_SYS_ADMIN over it)");
		else if (!ns)
			snprintf(buf, len, "not visible (setns: %s)", err);
		else if (res->err == EPERM)
			snprintf(buf, len,
				 "need CAP_SYS_ADMIN over %s%s (setns: %s; %s)",
				 article, what, err, have_cap_sys_admin() ?
				 "it is not below your own user namespace" :
				 "you have no CAP_SYS_ADMIN and do not own it");
		else
			snprintf(buf, len, "cannot enter %s%s: setns: %s",
				 article, what, err);
		return buf;
	case LVL_OPEN:
		if (!ns)
			break;
		if (res->write && denied && res->on_floor)
			snprintf(buf, len,
				 "need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor (cannot open %s for writing: %s)",
				 path, err);
		else if (res->write && denied && initial)
			snprintf(buf, len,
				 "need uid 0 in the initial user namespace to set its level (cannot open %s for writing: %s)",
				 path, err);
		else if (res->write && denied)
			snprintf(buf, len,
				 "need CAP_SYS_ADMIN over %s%s (cannot open %s for writing: %s)",
				 article, what, path, err);
		else if (res->err == ENOENT)
			snprintf(buf, len,
				 "%s has no %s: is /proc mounted, are perf events enabled in this kernel?",
				 what, path);
		else
			snprintf(buf, len, "cannot open %s in %s%s: %s", path,
				 article, what, err);
		return buf;
	case LVL_READ:
		if (!ns)
			break;
		snprintf(buf, len, "cannot read the %s of %s%s: %s",
			 res->on_floor ? "floor" : "level", article, what, err);
		return buf;
	case LVL_WRITE:
		if (!ns)
			break;
		if (denied && res->on_floor)
			snprintf(buf, len,
				 "need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor (write: %s)",
				 err);
		else if (res->err == EPERM && !res->on_floor &&
			 res->have_level && wanted < res->level)
			snprintf(buf, len,
				 "%s is at %d; a namespace's level can only be raised",
				 what, res->level);
		else if (res->err == EPERM && !res->on_floor && res->ask_err)
			snprintf(buf, len,
				 "the kernel refused level %d for %s%s (write: %s), and cannot tell the level in force there: %s",
				 wanted, article, what, err,
				 perf_ioctl_error(res->ask_err));
		else if (denied)
			snprintf(buf, len, "need CAP_SYS_ADMIN over %s%s (write: %s)",
				 article, what, err);
		else
			snprintf(buf, len,
				 "the kernel refused %s %d for %s%s: %s",
				 res->on_floor ? "floor" : "level", wanted,
				 article, what, err);
		return buf;
	case LVL_ASK:
		if (!ns)
			snprintf(buf, len, "unknown (NS_PERF_PARANOID_GET: %s)",
				 err);
		else
			snprintf(buf, len,
				 "cannot ask the kernel for the level in force in %s%s: %s",
				 article, what, perf_ioctl_error(res->err));
		return buf;
	case LVL_GLOBAL:
		if (!ns)
			break;
		snprintf(buf, len, "%s", NOT_PER_NS_MSG);
		return buf;
	case LVL_UNSURE:
		if (!ns)
			break;
		snprintf(buf, len,
			 "cannot tell whether this kernel has a per-namespace perf_event_paranoid (%s: %s); refusing to change it",
			 USERNS_PARANOID_PATH, err);
		return buf;
	case LVL_NOFLOOR:
		if (!ns)
			break;
		snprintf(buf, len, "%s; nothing changed", NO_FLOOR_MSG);
		return buf;
	case LVL_TIMEOUT:
		if (!ns)
			snprintf(buf, len,
				 "unknown (no answer within %d s: the child that entered it was stopped or stalled)",
				 op_timeout_s);
		else
			snprintf(buf, len,
				 "no answer within %d s from the child that entered %s%s (stopped or stalled: whoever holds CAP_KILL in that namespace can stop it); killed it. %s",
				 op_timeout_s, article, what, res->write ?
				 "The write may or may not have happened: check with perfns get" :
				 "Nothing was read");
		return buf;
	case LVL_CHILD:
		if (!ns)
			snprintf(buf, len,
				 "unknown (the child that entered it ended without an answer%s%s)",
				 res->err ? ": " : "",
				 res->err ? strsignal(res->err) : "");
		else
			snprintf(buf, len,
				 "the child that entered %s%s ended without a valid answer (%s%s); %s",
				 article, what, res->err ?
				 "killed by signal: " : "it exited",
				 res->err ? strsignal(res->err) : "",
				 res->write ?
				 "the write may or may not have happened: check with perfns get" :
				 "nothing was read");
		return buf;
	case LVL_SKIPPED:
		if (!ns)
			snprintf(buf, len,
				 "not read (the child reading a namespace above it timed out or was killed)");
		else
			snprintf(buf, len,
				 "did not try %s%s: reading a namespace above it failed",
				 article, what);
		return buf;
	case LVL_INTERNAL:
		if (!ns)
			break;
		snprintf(buf, len, "cannot reach %s%s: %s", article, what, err);
		return buf;
	}
	/* A row says only the cause where a command says more. */
	snprintf(buf, len, "unknown (%s)", err);
	return buf;
}

/*
 * Says on stderr why @op on @ns did not work, naming the namespace and the
 * cause. Returns EXIT_FAIL (EXIT_OK for LVL_OK).
 */
int report_level_error(const struct userns *ns, const struct lvl_result *res,
		       const struct lvl_op *op)
{
	char text[1024];

	if (!level_error_text(res, op, ns, text, sizeof(text)))
		return EXIT_OK;
	msg("%s", text);
	return EXIT_FAIL;
}
